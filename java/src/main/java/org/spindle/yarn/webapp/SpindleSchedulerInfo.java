package org.spindle.yarn.webapp;

import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNodeReport;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.FifoSchedulerInfo;
import org.spindle.yarn.SpindleScheduler;

/**
 * SpindleScheduler as /ws/v1/cluster/scheduler shows it: the shape of
 * FifoSchedulerInfo ("type": "fifoScheduler"), which is what it is to a
 * REST client (one queue, apps in submission order). The RM's JAXB context
 * knows FifoSchedulerInfo and serialises this subclass as one. Filled as
 * FifoSchedulerInfo(ResourceManager) fills it, without its cast to
 * FifoScheduler.
 */
public class SpindleSchedulerInfo extends FifoSchedulerInfo {
  public SpindleSchedulerInfo() {} // JAXB

  public SpindleSchedulerInfo(SpindleScheduler s, RMContext rmContext) {
    QueueInfo q = s.getQueueInfo(SpindleScheduler.QUEUE_NAME, false, false);
    qName = q.getQueueName();
    usedCapacity = q.getCurrentCapacity();
    capacity = q.getCapacity();
    qstate = q.getQueueState();
    minQueueMemoryCapacity = s.getMinimumResourceCapability().getMemorySize();
    maxQueueMemoryCapacity = s.getMaximumResourceCapability().getMemorySize();
    numNodes = rmContext.getRMNodes().size();
    for (RMNode n : rmContext.getRMNodes().values()) {
      SchedulerNodeReport report = s.getNodeReport(n.getNodeID());
      if (report != null) {
        usedNodeCapacity += (int) report.getUsedResource().getMemorySize();
        availNodeCapacity += (int) report.getAvailableResource().getMemorySize();
        numContainers += report.getNumContainers();
      }
      totalNodeCapacity += (int) n.getTotalCapability().getMemorySize();
    }
  }
}
