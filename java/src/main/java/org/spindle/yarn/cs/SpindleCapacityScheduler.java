package org.spindle.yarn.cs;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.spindle.yarn.CapabilityCache;

/**
 * The stock CapacityScheduler with Spindle switched on, in one line on every
 * Hadoop line: {@code yarn.resourcemanager.scheduler.class =
 * org.spindle.yarn.cs.SpindleCapacityScheduler}. It only hooks
 * {@link #handle}: each app attempt gets {@link SpindlePlacementAllocator}
 * (Hadoop 3.3.6 has no cluster-wide allocator key), node events reach the
 * core, and each node heartbeat has the core decide for that node before the
 * CapacityScheduler allocates (and tells the leaves' walks the node). It also
 * starts and stops the core with the scheduler. Queues, capacities, user
 * limits, ACLs, preemption, node labels and reservations are the
 * CapacityScheduler's, untouched; an app of a leaf
 * queue is ordered by Spindle only where that queue's ordering-policy is
 * {@link SpindleOrderingPolicy}.
 */
public class SpindleCapacityScheduler extends CapacityScheduler {
  /** The allocator apps get (tests name a missing class to see the fallback reported). */
  static volatile String allocatorClass = SpindlePlacementAllocator.class.getName();

  private volatile CsRuntime runtime;
  private final CapabilityCache capabilities = new CapabilityCache();

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    runtime = CsRuntime.start(this, getRMContext(), conf, allocatorClass,
        SpindleCapacityScheduler.class.getSimpleName());
  }

  @Override
  public void serviceStop() throws Exception {
    CsRuntime rt = runtime;
    if (rt != null) {
      rt.stop();
    }
    super.serviceStop();
  }

  /** Hadoop's normalisation, then equal capabilities shared ({@link CapabilityCache}). */
  @Override
  protected void normalizeResourceRequests(List<ResourceRequest> asks, String queueName) {
    super.normalizeResourceRequests(asks, queueName);
    capabilities.share(asks);
  }

  CsRuntime runtime() {
    return runtime;
  }

  @Override
  public void handle(SchedulerEvent event) {
    CsRuntime rt = runtime;
    if (rt == null) {
      super.handle(event);
      return;
    }
    SchedulerNode heartbeat = null;
    switch (event.getType()) {
      case APP_ATTEMPT_ADDED:
        rt.enableAllocator(((AppAttemptAddedSchedulerEvent) event).getApplicationAttemptId());
        break;
      case NODE_UPDATE: {
        SchedulerNode node =
            getSchedulerNode(((NodeUpdateSchedulerEvent) event).getRMNode().getNodeID());
        if (node != null) {
          rt.nodeUpdate(node);
          heartbeat = node;
        }
        break;
      }
      case NODE_REMOVED: {
        SchedulerNode node =
            getSchedulerNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode().getNodeID());
        if (node != null) {
          rt.nodeRemoved(node.getNodeName());
        }
        break;
      }
      default:
        break;
    }
    if (heartbeat != null && rt.skipsApps()) {
      // The synchronous heartbeat allocates on this node alone: its leaves'
      // walks may pass over the apps it would only veto (SpindleOrderingPolicy).
      CsRuntime.pin(heartbeat);
      try {
        super.handle(event);
      } finally {
        CsRuntime.pin(null);
      }
    } else {
      super.handle(event);
    }
    switch (event.getType()) {
      case NODE_ADDED: {
        SchedulerNode node =
            getSchedulerNode(((NodeAddedSchedulerEvent) event).getAddedRMNode().getNodeID());
        if (node != null) {
          rt.nodeAdded(node);
        }
        break;
      }
      case NODE_RESOURCE_UPDATE: {
        SchedulerNode node =
            getSchedulerNode(((NodeResourceUpdateSchedulerEvent) event).getRMNode().getNodeID());
        if (node != null) {
          rt.nodeResourceUpdated(node);
        }
        break;
      }
      case APP_ATTEMPT_REMOVED:
        rt.attemptRemoved(((AppAttemptRemovedSchedulerEvent) event).getApplicationAttemptID());
        break;
      default:
        break;
    }
  }
}
