package org.spindle.yarn.cs;

import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.junit.Test;
import org.spindle.yarn.TestCapabilityCache;
import org.spindle.yarn.cs.CsCluster.Mode;

/** SpindleCapacityScheduler keeps one capability object for an app's asks of one size. */
public class TestCsCapabilities {
  @Test
  public void aMapStagesAsksShareOneCapability() throws Exception {
    try (CsCluster c = new CsCluster(Mode.SPINDLE)) {
      MockAM am = c.launch("share", "alice", "prod", "h4");
      am.allocate(CsCluster.maps(20, 6, 0), null);
      TestCapabilityCache.assertOneCapability(c.rm, am, 20);
    }
  }
}
