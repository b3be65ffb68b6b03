package org.spindle.yarn.cs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import org.junit.Test;
import org.spindle.core.SpindleCore;

/** The node decisions the allocators read, and the bounded veto (Hadoop-free). */
public class TestPlacementBoard {
  /** Offers as the core writes them: app, priority, count, locality. */
  private static int[] offers(int... quads) {
    return quads;
  }

  @Test
  public void aDecisionNamesItsPairsAndTakesTheirContainers() {
    PlacementBoard b = new PlacementBoard(3, -1);
    b.heartbeat("h1", true, 0, offers(7, 20, 2, SpindleCore.NODE_LOCAL), 1);
    assertEquals(1, b.allows("h1", 7, 20, true));
    assertEquals("another priority", 0, b.allows("h1", 7, 10, true));
    assertEquals("another app", 0, b.allows("h1", 8, 20, true));
    assertEquals("a node with no decision", -1, b.allows("h9", 7, 20, true));
    assertEquals(0, b.planned("h1", 7, 20));
    assertTrue(b.granted("h1", 7, 20, SpindleCore.NODE_LOCAL, true));
    assertTrue(b.granted("h1", 7, 20, SpindleCore.NODE_LOCAL, true));
    assertEquals("both containers taken", 0, b.allows("h1", 7, 20, true));
    assertEquals(-1, b.planned("h1", 7, 20));
    assertFalse("a third is off the plan", b.granted("h1", 7, 20, SpindleCore.RACK_LOCAL, true));
    assertEquals(2, b.grantsOnPlan.sum());
    assertEquals(1, b.grantsOffPlan.sum());
    assertEquals(2, b.grants[SpindleCore.NODE_LOCAL].sum());
    assertEquals(1, b.grants[SpindleCore.RACK_LOCAL].sum());
  }

  @Test
  public void anUnchangedDecisionIsNotRebuilt() {
    PlacementBoard b = new PlacementBoard(3, -1);
    int[] q = offers(7, 20, 2, 0, 8, 20, 1, 1);
    b.heartbeat("h1", true, 0, q, 2);
    PlacementBoard.Decision d = b.nodeForTest("h1").decision;
    b.heartbeat("h1", true, 1, q, 2);
    assertSame("the steady state allocates nothing", d, b.nodeForTest("h1").decision);
    b.granted("h1", 7, 20, 0, true);
    b.heartbeat("h1", true, 2, offers(7, 20, 1, 0, 8, 20, 1, 1), 2);
    assertSame("the core booked the grant the board took", d, b.nodeForTest("h1").decision);
    b.heartbeat("h1", true, 3, offers(8, 20, 1, 1), 1);
    assertEquals(0, b.allows("h1", 7, 20, true));
    b.heartbeat("h1", true, 4, q, -1);
    assertSame("no decision: empty", PlacementBoard.EMPTY, b.nodeForTest("h1").decision);
  }

  @Test
  public void vetoesOfAnIdleNodeLiftAfterTheCountAndAGrantRestoresThem() {
    PlacementBoard b = new PlacementBoard(3, -1);
    int[] q = offers(7, 20, 4, 0);
    b.heartbeat("h1", true, 0, q, 1);
    for (int beat = 1; beat <= 3; beat++) {
      assertEquals("beat " + beat, 0, b.allows("h1", 8, 20, true));
      b.heartbeat("h1", true, beat, q, 1);
      assertEquals("lifted at the 3rd idle heartbeat", beat == 3, b.lifted("h1"));
    }
    assertEquals(1, b.allows("h1", 8, 20, true));
    assertEquals(1, b.lifts.sum());
    assertEquals(1, b.liftedPasses.sum());
    b.granted("h1", 8, 20, SpindleCore.RACK_LOCAL, true);
    b.heartbeat("h1", true, 4, q, 1);
    assertFalse("a grant restores the vetoes", b.lifted("h1"));
    assertEquals(0, b.allows("h1", 8, 20, true));
  }

  @Test
  public void aFullNodeDoesNotIdleAndTheTimeBoundLiftsToo() {
    PlacementBoard b = new PlacementBoard(100, 3_000);
    int[] q = offers(7, 20, 4, 0);
    b.heartbeat("h1", false, 0, q, 1);
    for (int beat = 1; beat <= 5; beat++) {
      b.allows("h1", 8, 20, false);
      b.heartbeat("h1", false, beat * 1000, q, 1);
    }
    assertFalse("no room: nothing idles", b.lifted("h1"));
    b.allows("h1", 8, 20, true);
    b.heartbeat("h1", true, 10_000, q, 1); // first idle heartbeat
    b.allows("h1", 8, 20, true);
    b.heartbeat("h1", true, 12_000, q, 1);
    assertFalse(b.lifted("h1"));
    b.allows("h1", 8, 20, true);
    b.heartbeat("h1", true, 13_000, q, 1);
    assertTrue("3 s after the first idle heartbeat", b.lifted("h1"));
  }

  /** The skip rule of a leaf's walk (CsRuntime#skips): a key the node would only veto. */
  @Test
  public void aQuietVetoIsOneTheNodeWouldCertainlyMakeAndThatChangesNothing() {
    PlacementBoard b = new PlacementBoard(3, -1);
    assertNull("an undecided node: Spindle's locality delay decides", b.vetoing("h9"));
    b.heartbeat("h1", true, 0, offers(7, 20, 1, SpindleCore.NODE_LOCAL), 1);
    PlacementBoard.Node s = b.vetoing("h1");
    assertSame(b.nodeForTest("h1"), s);
    assertFalse("the decision holds the pair", PlacementBoard.quietVeto(s, 7, 20, true, false));
    assertFalse("a reducer key (no location) goes anywhere",
        PlacementBoard.quietVeto(s, 8, 10, false, false));
    assertFalse("an app the core does not hold", PlacementBoard.quietVeto(s, -1, 20, true, false));
    assertFalse("another app with room: its veto would mark the node",
        PlacementBoard.quietVeto(s, 8, 20, true, true));
    assertTrue("another app whose container does not fit",
        PlacementBoard.quietVeto(s, 8, 20, true, false));
    assertTrue(b.granted("h1", 7, 20, SpindleCore.NODE_LOCAL, true));
    assertFalse("0 left, room: would mark", PlacementBoard.quietVeto(s, 7, 20, true, true));
    assertTrue("0 left, no room", PlacementBoard.quietVeto(s, 7, 20, true, false));
    assertEquals(0, b.allows("h1", 8, 20, true)); // the node's first veto with room marks it
    assertTrue(s.vetoed);
    assertTrue("marked: a veto adds nothing", PlacementBoard.quietVeto(s, 8, 20, true, true));
    assertTrue("0 left, marked", PlacementBoard.quietVeto(s, 7, 20, true, true));
    assertEquals("the rule counts no veto", 1, b.vetoes.sum());
    // The grant's heartbeat restarts the count: 3 idle ones after it lift the vetoes.
    for (int beat = 1; !b.lifted("h1"); beat++) {
      assertTrue("lifted by the 4th heartbeat", beat <= 4);
      b.heartbeat("h1", true, beat, offers(7, 20, 1, SpindleCore.NODE_LOCAL), 1);
      if (!b.lifted("h1")) {
        assertSame(s, b.vetoing("h1"));
        assertFalse("a new heartbeat clears the mark",
            PlacementBoard.quietVeto(s, 8, 20, true, true));
        b.allows("h1", 8, 20, true);
      }
    }
    assertNull("a lifted node passes every app", b.vetoing("h1"));
  }
}
