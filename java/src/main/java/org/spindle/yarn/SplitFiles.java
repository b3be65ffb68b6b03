package org.spindle.yarn;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exact input of MapReduce apps, for both modes: when an attempt is
 * added, its {@code job.splitmetainfo} (found among its AM's local
 * resources) is read on a background thread through Hadoop's FileSystem
 * API as the app's user with the app's own tokens ({@link SplitRead}), and
 * the splits' hosts go to the core ({@code set_input_blocks}); no heartbeat
 * waits for HDFS.
 *
 * <p>Bounded: {@code spindle.splits.threads} readers, at most {@link #QUEUE}
 * apps waiting (more are refused), each read interrupted at
 * {@code spindle.splits.timeout-ms}, the file size and lookups bounded by
 * {@link SplitRead}. A failed read leaves the app planned from its asks; it
 * is counted ({@code SplitReadFailures}) and logged once per app with its
 * cause (expired or cancelled token, permission denied, path missing, ...).
 */
public final class SplitFiles implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SplitFiles.class);
  /** MapReduce's map priority (RMContainerAllocator.PRIORITY_MAP): the asks a split file describes. */
  public static final int MAP_PRIORITY = 20;
  /** The local resource of a MapReduce AM that holds its splits' locations (YARNRunner). */
  public static final String SPLIT_META_INFO = "job.splitmetainfo";
  /** The local resource holding the splits themselves. */
  public static final String SPLIT_FILE = "job.split";
  /** Apps waiting for a reader, at most (as spindle-hadoop's split reader). */
  public static final int QUEUE = 256;
  /** The key of Hadoop's own limit on the split file (MRJobConfig.SPLIT_METAINFO_MAXSIZE). */
  static final String MAX_SIZE_KEY = "mapreduce.job.split.metainfo.maxsize";
  /** Apps remembered as already logged (older ones may be logged again). */
  private static final int WARNED = 10_000;

  private final Configuration conf;
  private final CoreBridge bridge;
  private final long timeoutMs;
  private final long maxBytes;
  /** Null when spindle.splits.read is false. */
  private final ThreadPoolExecutor pool;
  private final ScheduledExecutorService timer;
  private final AtomicLong exactInputs = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  /** Maps of each job whose split file was read, by its key, until {@link #forget}. */
  private final Map<Object, Integer> maps = new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<ApplicationId, Boolean> warned =
      Collections.synchronizedMap(new LinkedHashMap<ApplicationId, Boolean>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ApplicationId, Boolean> e) {
          return size() > WARNED;
        }
      });

  /** Readers for the core behind {@code bridge}; {@code conf} is the RM's configuration. */
  public SplitFiles(Configuration conf, SpindleSettings settings, CoreBridge bridge) {
    this.conf = new Configuration(conf);
    // The size cap may sit in spindle-site.xml too (the RM reads no mapred-site.xml).
    this.conf.addResource(SpindleSettings.SITE_FILE);
    this.bridge = bridge;
    this.timeoutMs = settings.splitsTimeoutMs;
    long limit = this.conf.getLong(MAX_SIZE_KEY, SplitMetaInfo.MAX_SIZE);
    // -1 (no limit) in a job is not one in the RM: Hadoop's default bounds it.
    this.maxBytes = limit > 0 ? Math.min(limit, Integer.MAX_VALUE - 8) : SplitMetaInfo.MAX_SIZE;
    if (!settings.webhdfsAddress.isEmpty()) {
      LOG.info(SpindleSettings.WEBHDFS_ADDRESS + " is set but the RM does not use it: it reads"
          + " split files with Hadoop's FileSystem as each job's user (it is for `spindle plan"
          + " --webhdfs`)");
    }
    if (!settings.splitsRead) {
      pool = null;
      timer = null;
      LOG.info("split files are not read (" + SpindleSettings.SPLITS_READ
          + " = false): apps are planned from their asks");
      return;
    }
    pool = new ThreadPoolExecutor(settings.splitsThreads, settings.splitsThreads, 60,
        TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), daemons("spindle-split-reader"));
    pool.allowCoreThreadTimeOut(true);
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemons("spindle-split-timer"));
    t.setRemoveOnCancelPolicy(true);
    timer = t;
  }

  private static ThreadFactory daemons(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread th = new Thread(r, name + "-" + n.incrementAndGet());
      th.setDaemon(true);
      return th;
    };
  }

  /** Apps whose exact input reached the core. */
  public long exactInputs() {
    return exactInputs.get();
  }

  /** Split files that could not be read or used. */
  public long failures() {
    return failures.get();
  }

  /**
   * Queues the split file of {@code attemptId} (its user {@code user}) if
   * its AM has one; never blocks. {@code attemptId} is the attempt's key in
   * {@link CoreBridge}.
   */
  public void request(RMContext rmContext, ApplicationAttemptId attemptId, String user) {
    if (pool == null || rmContext == null) {
      return;
    }
    RMApp app = rmContext.getRMApps().get(attemptId.getApplicationId());
    if (app != null) {
      request(attemptId, app.getApplicationSubmissionContext(), user);
    }
  }

  /**
   * Queues the split file named among the AM's local resources in
   * {@code ctx}, to be read as {@code user} with the tokens of {@code ctx}
   * (what the client submitted, as YARNRunner writes them); never blocks.
   */
  public void request(ApplicationAttemptId attemptId, ApplicationSubmissionContext ctx,
      String user) {
    ContainerLaunchContext am = ctx == null ? null : ctx.getAMContainerSpec();
    Map<String, LocalResource> resources = am == null ? null : am.getLocalResources();
    if (pool == null || resources == null || user == null) {
      return;
    }
    URI meta = null;
    URI split = null;
    try {
      for (Map.Entry<String, LocalResource> e : resources.entrySet()) {
        if (e.getValue() == null || e.getValue().getResource() == null) {
          continue;
        }
        if (e.getKey().endsWith("/" + SPLIT_META_INFO) || e.getKey().equals(SPLIT_META_INFO)) {
          meta = e.getValue().getResource().toPath().toUri();
        } else if (e.getKey().endsWith("/" + SPLIT_FILE) || e.getKey().equals(SPLIT_FILE)) {
          split = e.getValue().getResource().toPath().toUri();
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      fail(attemptId, user, "" + meta, new SplitRead.Failure("bad local resource URL",
          e.toString(), e));
      return;
    }
    if (meta == null) {
      return; // not a MapReduce job
    }
    ByteBuffer tokens = am.getTokens();
    byte[] t = null;
    if (tokens != null) {
      ByteBuffer b = tokens.duplicate();
      b.rewind();
      t = new byte[b.remaining()];
      b.get(t);
    }
    SplitRead.Job job = new SplitRead.Job(attemptId, attemptId.getApplicationId().toString(),
        user, meta, split, t);
    try {
      pool.execute(() -> run(job));
    } catch (RejectedExecutionException e) {
      fail(job, new SplitRead.Failure("the split readers are busy", QUEUE + " apps waiting", e));
    }
  }

  /** One read on a reader thread, interrupted at its deadline. */
  private void run(SplitRead.Job job) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Thread self = Thread.currentThread();
    Object lock = new Object();
    boolean[] done = {false};
    ScheduledFuture<?> alarm = timer.schedule(() -> {
      synchronized (lock) {
        if (!done[0]) {
          self.interrupt();
        }
      }
    }, timeoutMs, TimeUnit.MILLISECONDS);
    SplitRead.Result r = null;
    SplitRead.Failure f = null;
    try {
      r = SplitRead.read(conf, job, maxBytes, deadline);
    } catch (SplitRead.Failure e) {
      f = e;
    } catch (RuntimeException e) {
      f = SplitRead.classify(e, deadline);
    } finally {
      synchronized (lock) {
        done[0] = true;
      }
      alarm.cancel(false);
      Thread.interrupted(); // an alarm that fired before done: not for the next read
    }
    if (f != null) {
      fail(job, f);
    } else if (bridge.inputBlocks(job.key, MAP_PRIORITY, r.hosts)) {
      maps.put(job.key, r.hosts.length);
      LOG.info(job.key + ": exact input of " + r.hosts.length + " splits from " + job.metaInfo
          + " (read as " + job.user + (r.lookedUp > 0
              ? "; " + r.lookedUp + " location-less splits located from their input files"
              : "") + ")");
      // Counted after the line is logged: whoever sees the count sees the line.
      exactInputs.incrementAndGet();
    } else {
      // The app finished or left the core meanwhile, or the core refused (logged).
      LOG.debug(job.key + ": splits from " + job.metaInfo + " not used");
    }
  }

  private void fail(SplitRead.Job job, SplitRead.Failure f) {
    fail(job.key, job.user, String.valueOf(job.metaInfo), f);
  }

  private void fail(Object key, String user, String path, SplitRead.Failure f) {
    ApplicationId app = key instanceof ApplicationAttemptId
        ? ((ApplicationAttemptId) key).getApplicationId() : null;
    String line = key + ": cannot read its split file " + path + " as " + user + ": "
        + f.getMessage() + "; planned from its asks";
    if (app == null || warned.put(app, Boolean.TRUE) == null) {
      LOG.warn(line);
    } else {
      LOG.debug(line);
    }
    // After the line, as exactInputs: tests wait on the count, then read the log.
    failures.incrementAndGet();
  }

  /** The job's number of maps from its split file; -1 while unknown (not read yet, or not MapReduce). */
  public int maps(Object key) {
    Integer n = maps.get(key);
    return n == null ? -1 : n;
  }

  /** Drops what is known of {@code key} (its attempt ended). */
  public void forget(Object key) {
    maps.remove(key);
  }

  /** Stops the readers: a read in hand is interrupted; waits at most 5 s. */
  @Override
  public void close() {
    if (pool == null) {
      return;
    }
    pool.shutdownNow();
    timer.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
