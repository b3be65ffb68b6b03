package org.spindle.core;

/**
 * The JVM tests' tiny harness (no test framework needed): one line per test,
 * a closing "N passed, N failed" line that scripts/test sums up.
 */
public final class TestKit {
  private static int passed;
  private static int failed;

  private TestKit() {}

  public interface Body {
    void run() throws Exception;
  }

  public static void test(String name, Body body) {
    try {
      body.run();
      passed++;
      System.out.println("ok   " + name);
    } catch (Throwable t) {
      failed++;
      System.out.println("FAIL " + name + ": " + t);
      t.printStackTrace(System.out);
    }
  }

  public static void check(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }

  public static <T extends Throwable> T expect(Class<T> type, Body body) throws Exception {
    try {
      body.run();
    } catch (Throwable t) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
      throw new AssertionError("expected " + type.getSimpleName() + ", got " + t, t);
    }
    throw new AssertionError("expected " + type.getSimpleName() + ", nothing was thrown");
  }

  /** Prints the closing line and exits 1 if anything failed. */
  public static void finish() {
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
