package org.spindle.bench.rm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.Random;
import org.junit.Test;

/** The heartbeat cost fit: dt = fixed + per allocated + per reported. */
public class LeastSquaresTest {
  @Test
  public void recoversAnExactLinearCost() {
    Random rnd = new Random(7);
    double n = 0, sa = 0, sr = 0, saa = 0, srr = 0, sar = 0, sy = 0, say = 0, sry = 0;
    for (int i = 0; i < 1000; i++) {
      int a = rnd.nextInt(5);
      int r = rnd.nextInt(4);
      double y = 12.5 + 30.0 * a + 4.0 * r;
      n++;
      sa += a;
      sr += r;
      saa += a * a;
      srr += r * r;
      sar += a * r;
      sy += y;
      say += a * y;
      sry += r * y;
    }
    double[] fit = BenchRun.leastSquares3(n, sa, sr, saa, srr, sar, sy, say, sry);
    assertEquals(12.5, fit[0], 1e-6);
    assertEquals(30.0, fit[1], 1e-6);
    assertEquals(4.0, fit[2], 1e-6);
  }

  @Test
  public void aWindowWithoutVariationHasNoFit() {
    // Every heartbeat allocated 1 and reported 0: the per-reported cost is unknown.
    double n = 10;
    assertNull(BenchRun.leastSquares3(n, n, 0, n, 0, 0, 100, 100, 0));
  }
}
