package org.spindle.bench.rm;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.MockRMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.util.Records;

/**
 * The RMApp a scheduler looks up in the RMContext: MockRMApp with a fixed
 * submission context (an unmanaged AM, so no AM container is waited for)
 * and a scheduling environment the CapacityScheduler mode can write to.
 */
final class BenchRMApp extends MockRMApp {
  static final String USER = "bench";
  static final String QUEUE = "default";

  private final ApplicationSubmissionContext context;
  private final Map<String, String> envs = new HashMap<>();

  BenchRMApp(int seq, long now) {
    super(seq, now, RMAppState.RUNNING);
    context = Records.newRecord(ApplicationSubmissionContext.class);
    context.setApplicationId(getApplicationId());
    context.setQueue(QUEUE);
    context.setApplicationName("bench-" + seq);
    context.setUnmanagedAM(true);
    context.setPriority(Priority.newInstance(0));
  }

  @Override
  public ApplicationSubmissionContext getApplicationSubmissionContext() {
    return context;
  }

  @Override
  public Map<String, String> getApplicationSchedulingEnvs() {
    return envs;
  }

  /** No attempt state machine: the RM's attempt events for this app are dropped. */
  @Override
  public RMAppAttempt getRMAppAttempt(ApplicationAttemptId appAttemptId) {
    return null;
  }

  @Override
  public String getUser() {
    return USER;
  }

  @Override
  public String getQueue() {
    return QUEUE;
  }
}
