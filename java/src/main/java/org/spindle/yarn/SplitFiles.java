package org.spindle.yarn;

import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;

/** A MapReduce app's split file, read by the core in the background (both modes). */
public final class SplitFiles {
  /** MapReduce's map priority (RMContainerAllocator.PRIORITY_MAP): the asks a split file describes. */
  public static final int MAP_PRIORITY = 20;
  /** The local resource of a MapReduce AM that holds its splits' locations (YARNRunner). */
  public static final String SPLIT_META_INFO = "job.splitmetainfo";

  private SplitFiles() {}

  /**
   * If spindle.webhdfs.address is set, queues the attempt's split file for
   * the core's reader, which plans the app's maps on their exact replicas.
   * Anything missing or failing leaves the app planned from its asks (the
   * core reports it in one log line).
   */
  public static void request(RMContext rmContext, SpindleSettings settings, CoreBridge bridge,
      ApplicationAttemptId attemptId, String user) {
    if (settings.webhdfsAddress.isEmpty() || rmContext == null) {
      return;
    }
    RMApp app = rmContext.getRMApps().get(attemptId.getApplicationId());
    if (app == null || app.getApplicationSubmissionContext() == null
        || app.getApplicationSubmissionContext().getAMContainerSpec() == null) {
      return;
    }
    Map<String, LocalResource> resources =
        app.getApplicationSubmissionContext().getAMContainerSpec().getLocalResources();
    if (resources == null) {
      return;
    }
    for (Map.Entry<String, LocalResource> e : resources.entrySet()) {
      if (e.getKey().endsWith(SPLIT_META_INFO) && e.getValue().getResource() != null) {
        String path = e.getValue().getResource().getFile();
        if (path != null && path.startsWith("/")) {
          bridge.readSplits(attemptId, MAP_PRIORITY, settings.webhdfsAddress, path, user);
        }
        return;
      }
    }
  }
}
