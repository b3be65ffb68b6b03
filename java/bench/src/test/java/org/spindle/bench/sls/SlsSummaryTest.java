package org.spindle.bench.sls;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import org.junit.Test;

public class SlsSummaryTest {
  private static List<String[]> checks(String json) throws IOException {
    JsonNode r = new ObjectMapper().readTree(json);
    return SlsSummary.checks("capacity", r);
  }

  /** A job the RM finished counts even when SLS lost its jobruntime.csv row. */
  @Test
  public void jobsAreCountedFromTheRmNotFromSlsRows() throws IOException {
    List<String[]> c = checks("{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_timed\": 5,"
        + " \"remaining_apps\": 0, \"containers\": 246, \"heartbeat_count\": 700}");
    assertEquals("all 6 jobs finished, 5 timed by SLS", c.get(0)[0]);
    assertNull(c.get(0)[1]);
  }

  /** A scheduler rerun after a lost job says so in its check. */
  @Test
  public void aRetriedRunSaysSo() throws IOException {
    List<String[]> c = checks("{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_timed\": 6,"
        + " \"remaining_apps\": 0, \"earlier_failed_runs\": 1}");
    assertEquals("all 6 jobs finished; on run 2, the earlier lost a job", c.get(0)[0]);
  }

  /** SLS's AM released its container before it unregistered: the RM failed a finished job. */
  @Test
  public void aJobTheRmFailedAfterItsLastTaskIsSaid() throws IOException {
    List<String[]> c = checks("{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_failed_by_rm\": 1,"
        + " \"jobs_timed\": 6, \"remaining_apps\": 0}");
    assertEquals("all 6 jobs finished, 1 failed by the RM after their last task"
        + " (SLS's AM container race)", c.get(0)[0]);
  }

  /** The RM's diagnostics for SLS's race (from a 3.4.2 run), and for a real AM failure. */
  @Test
  public void anAmContainerThatExitedZeroIsTheRace() {
    assertTrue(SlsBench.amExitedAfterLastStep("Application application_1795837680905_0018"
        + " failed 1 times (global limit =2; local limit is =1) due to AM Container for"
        + " appattempt_1795837680905_0018_000001 exited with  exitCode: 0\nFailing this attempt."));
    assertFalse(SlsBench.amExitedAfterLastStep("Application application_1_0002 failed 1 times"
        + " due to AM Container for appattempt_1_0002_000001 exited with  exitCode: 143"));
    assertFalse(SlsBench.amExitedAfterLastStep("Application application_1_0002 failed 1 times"
        + " due to AM Container for appattempt_1_0002_000001 exited with  exitCode: -100"));
    assertFalse(SlsBench.amExitedAfterLastStep("null"));
  }

  @Test
  public void aJobTheRmDidNotFinishFails() throws IOException {
    List<String[]> c = checks("{\"jobs\": 6, \"jobs_finished\": 5, \"jobs_timed\": 5,"
        + " \"remaining_apps\": 0, \"containers\": 246, \"heartbeat_count\": 700}");
    assertNull(c.get(0)[0]);
    assertEquals("5 of 6 jobs finished, 0 apps left", c.get(0)[1]);
  }

  @Test
  public void anAppLeftFailsAndNoResultFails() throws IOException {
    List<String[]> c = checks("{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_timed\": 6,"
        + " \"remaining_apps\": 1, \"containers\": 246, \"heartbeat_count\": 700}");
    assertEquals("6 of 6 jobs finished, 1 apps left", c.get(0)[1]);
    assertEquals("all 6 jobs finished", checks("{\"jobs\": 6, \"jobs_finished\": 6,"
        + " \"jobs_timed\": 6, \"remaining_apps\": 0}").get(0)[0]);
    assertEquals("no result.json (the run failed; see its log)",
        SlsSummary.checks("spindle", null).get(0)[1]);
  }

  /** The CapacityScheduler mode passes only when Spindle's allocator placed the containers. */
  @Test
  public void theCapacityModeChecksWhoseAllocatorPlaced() throws IOException {
    String base = "{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_timed\": 6,"
        + " \"remaining_apps\": 0, \"containers\": 246, \"heartbeat_count\": 700,"
        + " \"cs_GrantsNodeLocal\": 200, \"cs_GrantsRackLocal\": 30, \"cs_GrantsOffSwitch\": 10,"
        + " \"cs_CoreErrors\": 0, ";
    List<String[]> ok =
        checks(base + "\"cs_LiveAllocatorsSeen\": 6, \"cs_ForeignAllocatorsSeen\": 0}");
    assertEquals("Spindle's allocator placed 240 containers (scheduler keys at once: up to 6,"
        + " none with another allocator), no core error", ok.get(ok.size() - 1)[0]);
    // A run short enough to end between the 2 s samples saw no key; the grants still count.
    List<String[]> unsampled =
        checks(base + "\"cs_LiveAllocatorsSeen\": 0, \"cs_ForeignAllocatorsSeen\": 0}");
    assertEquals("Spindle's allocator placed 240 containers (scheduler keys at once: up to 0,"
        + " none with another allocator), no core error", unsampled.get(unsampled.size() - 1)[0]);
    List<String[]> none = checks("{\"jobs\": 6, \"jobs_finished\": 6, \"jobs_timed\": 6,"
        + " \"remaining_apps\": 0, \"containers\": 246, \"heartbeat_count\": 700,"
        + " \"cs_GrantsNodeLocal\": 0, \"cs_GrantsRackLocal\": 0, \"cs_GrantsOffSwitch\": 0,"
        + " \"cs_CoreErrors\": 0, \"cs_LiveAllocatorsSeen\": 0, \"cs_ForeignAllocatorsSeen\": 0}");
    assertEquals("Spindle's allocator: scheduler keys at once up to 0, 0 with another"
        + " allocator, 0 grants, 0 core errors", none.get(none.size() - 1)[1]);
    List<String[]> bad =
        checks(base + "\"cs_LiveAllocatorsSeen\": 5, \"cs_ForeignAllocatorsSeen\": 1}");
    assertEquals("Spindle's allocator: scheduler keys at once up to 5, 1 with another"
        + " allocator, 240 grants, 0 core errors", bad.get(bad.size() - 1)[1]);
  }
}
