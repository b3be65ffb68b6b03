package org.spindle.mapreduce;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;

import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.mapreduce.v2.app.speculate.LegacyTaskRuntimeEstimator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MR speculator's runtime estimator corrected for JVM start-up (S-PC
 * paper, Sect. V; spindle_core::estimate::JvmCorrected in Rust, same formula).
 *
 * <p>Hadoop's {@link LegacyTaskRuntimeEstimator} divides the time since
 * launch by the progress, so the JVM start-up counts as work and a young
 * attempt looks slow. This one measures the rate from the attempt's first
 * progress report on: remaining = (1 - CP) * (t_now - t_FP) / (CP - FP),
 * completion = t_now + remaining, t_now the time of the latest report.
 * Until a second report has made progress it answers as the legacy
 * estimator, whose bookkeeping (start times, finished-task statistics for
 * thresholds and new attempts) it inherits.
 *
 * <p>Switch it on per job or in mapred-site.xml:
 * {@code yarn.app.mapreduce.am.job.task.estimator.class =
 * org.spindle.mapreduce.JvmCorrectedRuntimeEstimator} (MRJobConfig.MR_AM_TASK_ESTIMATOR),
 * with this jar on the AM's classpath.
 */
public class JvmCorrectedRuntimeEstimator extends LegacyTaskRuntimeEstimator {
  private static final Logger LOG = LoggerFactory.getLogger(JvmCorrectedRuntimeEstimator.class);

  /** Most attempts tracked at once; past it, new attempts get the legacy estimate. */
  static final int MAX_ATTEMPTS = 1_000_000;

  /** First and latest report of an attempt; replaced whole, so readers see a consistent pair. */
  static final class Reports {
    final long firstAt;
    final double firstProgress;
    final long lastAt;
    final double lastProgress;

    Reports(long firstAt, double firstProgress, long lastAt, double lastProgress) {
      this.firstAt = firstAt;
      this.firstProgress = firstProgress;
      this.lastAt = lastAt;
      this.lastProgress = lastProgress;
    }
  }

  private final ConcurrentMap<TaskAttemptId, Reports> reports = new ConcurrentHashMap<>();
  /** The first corrected estimate is logged (once per AM), so that a run shows the estimator at work. */
  private final AtomicBoolean logged = new AtomicBoolean();

  @Override
  public void contextualize(Configuration conf, AppContext context) {
    super.contextualize(conf, context);
    LOG.info("JvmCorrectedRuntimeEstimator: runtime estimates timed from each attempt's first"
        + " progress report (JVM start-up excluded)");
  }

  /**
   * Corrected completion time, or NaN without a rate (no second report with
   * more progress, later in time). Mirrors JvmCorrected::corrected.
   */
  public static double correctedCompletion(
      long firstAt, double firstProgress, long lastAt, double lastProgress) {
    if (lastProgress > firstProgress && lastAt > firstAt) {
      double perUnit = (double) (lastAt - firstAt) / (lastProgress - firstProgress);
      return lastAt + (1.0 - lastProgress) * perUnit;
    }
    return Double.NaN;
  }

  @Override
  public void updateAttempt(TaskAttemptStatus status, long timestamp) {
    super.updateAttempt(status, timestamp);
    TaskAttemptId id = status.id;
    if (id == null) {
      return;
    }
    TaskAttemptState state = status.taskState;
    if (state == TaskAttemptState.SUCCEEDED
        || state == TaskAttemptState.FAILED
        || state == TaskAttemptState.KILLED) {
      reports.remove(id);
      return;
    }
    double p = status.progress;
    // A bad report is dropped (logged, naming the attempt); the speculator goes on.
    if (!(p >= 0.0 && p <= 1.0)) {
      LOG.warn("attempt {}: progress {} is not in [0, 1]; report ignored", id, p);
      return;
    }
    Reports old = reports.get(id);
    if (old == null) {
      if (reports.size() >= MAX_ATTEMPTS) {
        return;
      }
      reports.put(id, new Reports(timestamp, p, timestamp, p));
    } else if (timestamp < old.lastAt) {
      LOG.warn("attempt {}: report time {} goes back before the previous report at {}; ignored",
          id, timestamp, old.lastAt);
    } else {
      reports.put(id, new Reports(old.firstAt, old.firstProgress, timestamp, p));
    }
  }

  /** Estimated runtime from launch (what the speculator adds to the start time). */
  @Override
  public long estimatedRuntime(TaskAttemptId id) {
    Reports r = reports.get(id);
    long start = attemptEnrolledTime(id);
    if (r != null && start != Long.MAX_VALUE) {
      double end = correctedCompletion(r.firstAt, r.firstProgress, r.lastAt, r.lastProgress);
      if (!Double.isNaN(end)) {
        long runtime = Math.round(end - start);
        if (logged.compareAndSet(false, true)) {
          LOG.info("JvmCorrectedRuntimeEstimator: first corrected estimate: attempt {} runtime {} ms"
              + " (legacy {} ms), launched {}, first report at {} ({}), latest at {} ({})", id, runtime,
              super.estimatedRuntime(id), start, r.firstAt, r.firstProgress, r.lastAt, r.lastProgress);
        }
        return runtime;
      }
    }
    return super.estimatedRuntime(id);
  }

  /** Attempts whose reports are held (for tests). */
  int tracked() {
    return reports.size();
  }
}
