package org.spindle.mapreduce;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.mapreduce.v2.app.speculate.LegacyTaskRuntimeEstimator;
import org.apache.hadoop.mapreduce.v2.app.speculate.TaskRuntimeEstimator;
import org.apache.hadoop.mapreduce.v2.util.MRBuilderUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.Before;
import org.junit.Test;

/**
 * The estimator fed by synthetic TaskAttemptStatus updates, as the MR AM's
 * DefaultSpeculator feeds it (enrollAttempt at launch, updateAttempt per
 * status report), beside Hadoop's own LegacyTaskRuntimeEstimator on the
 * same reports.
 */
public class TestJvmCorrectedRuntimeEstimator {
  private TaskAttemptId attempt;
  private TaskAttempt taskAttempt;
  private AppContext context;

  @Before
  public void setUp() {
    JobId job = MRBuilderUtils.newJobId(ApplicationId.newInstance(1L, 1), 1);
    TaskId task = MRBuilderUtils.newTaskId(job, 0, TaskType.MAP);
    attempt = MRBuilderUtils.newTaskAttemptId(task, 0);
    taskAttempt = mock(TaskAttempt.class);
    when(taskAttempt.getState()).thenReturn(TaskAttemptState.RUNNING);
    Task t = mock(Task.class);
    when(t.getAttempt(any())).thenReturn(taskAttempt);
    Job j = mock(Job.class);
    when(j.getTask(any())).thenReturn(t);
    context = mock(AppContext.class);
    when(context.getJob(any())).thenReturn(j);
  }

  private TaskAttemptStatus status(double progress, TaskAttemptState state) {
    TaskAttemptStatus s = new TaskAttemptStatus();
    s.id = attempt;
    s.progress = (float) progress;
    s.taskState = state;
    return s;
  }

  private <E extends TaskRuntimeEstimator> E enrolled(E e, long launch) {
    e.contextualize(new Configuration(false), context);
    e.enrollAttempt(status(0.0, TaskAttemptState.STARTING), launch);
    return e;
  }

  @Test
  public void loadsAsTheSpeculatorDoes() throws Exception {
    // DefaultSpeculator: conf.getClass(MR_AM_TASK_ESTIMATOR, ...).getConstructor().newInstance().
    Class<? extends TaskRuntimeEstimator> c =
        Class.forName("org.spindle.mapreduce.JvmCorrectedRuntimeEstimator")
            .asSubclass(TaskRuntimeEstimator.class);
    assertTrue(c.getConstructor().newInstance() instanceof TaskRuntimeEstimator);
  }

  @Test
  public void exactOnALinearTaskFromTheSecondReport() {
    // Launched at 1000 ms, 4000 ms of JVM start-up, then 16384 ms of work
    // reported every 2048 ms (progress k/8: exact as the float Hadoop sends).
    long launch = 1000;
    long up = 5000;
    double work = 16384;
    JvmCorrectedRuntimeEstimator corrected = enrolled(new JvmCorrectedRuntimeEstimator(), launch);
    LegacyTaskRuntimeEstimator legacy = enrolled(new LegacyTaskRuntimeEstimator(), launch);
    for (int k = 1; k * 2048 < work; k++) {
      long at = up + 2048L * k;
      double p = 2048.0 * k / work;
      corrected.updateAttempt(status(p, TaskAttemptState.RUNNING), at);
      legacy.updateAttempt(status(p, TaskAttemptState.RUNNING), at);
      long legacyRuntime = (long) ((at - launch) / Math.max(0.0001, (float) p));
      assertEquals(legacyRuntime, legacy.estimatedRuntime(attempt));
      if (k == 1) {
        // One report: no rate yet, the legacy answer.
        assertEquals(legacyRuntime, corrected.estimatedRuntime(attempt));
      } else {
        // launch -> finish is 4000 + 16384 ms, whatever the report.
        assertEquals("report " + k, 20384L, corrected.estimatedRuntime(attempt));
        // The legacy estimate is late by the start-up times (1 - p) / p.
        long over = Math.round(4000 * (1 - p) / p);
        assertTrue(Math.abs(legacy.estimatedRuntime(attempt) - 20384L - over) <= 1);
      }
    }
    assertEquals(1, corrected.tracked());
    corrected.updateAttempt(status(1.0, TaskAttemptState.SUCCEEDED), up + 16384);
    assertEquals(0, corrected.tracked());
  }

  @Test
  public void mirrorsTheRustFormula() {
    // spindle_core::estimate tests: first report at 5 (0.1), latest at 9 (0.3) -> 23.
    assertEquals(23.0, JvmCorrectedRuntimeEstimator.correctedCompletion(5, 0.1, 9, 0.3), 1e-9);
    assertTrue(Double.isNaN(JvmCorrectedRuntimeEstimator.correctedCompletion(5, 0.2, 8, 0.2)));
    assertTrue(Double.isNaN(JvmCorrectedRuntimeEstimator.correctedCompletion(5, 0.1, 5, 0.3)));
  }

  @Test
  public void badReportsAreDropped() {
    JvmCorrectedRuntimeEstimator e = enrolled(new JvmCorrectedRuntimeEstimator(), 0);
    e.updateAttempt(status(0.25, TaskAttemptState.RUNNING), 5000);
    e.updateAttempt(status(Double.NaN, TaskAttemptState.RUNNING), 6000);
    e.updateAttempt(status(1.5, TaskAttemptState.RUNNING), 6000);
    e.updateAttempt(status(0.5, TaskAttemptState.RUNNING), 4000); // back in time
    e.updateAttempt(status(0.5, TaskAttemptState.RUNNING), 10000);
    // Rate from 5000 (0.25) to 10000 (0.5): 20000 ms per unit; end 20000.
    assertEquals(20000L, e.estimatedRuntime(attempt));
  }
}
