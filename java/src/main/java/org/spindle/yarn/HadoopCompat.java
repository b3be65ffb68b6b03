package org.spindle.yarn;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;

/**
 * The calls whose signatures differ between Hadoop 3.3.6 and 3.4.x (the
 * unmanaged-AM flag, facts file section 1.7), made reflectively so one jar
 * runs on both. Lookups happen once, at class load.
 */
final class HadoopCompat {
  private static final Method IS_UNMANAGED_AM = method(AppAddedSchedulerEvent.class, "isUnmanagedAM");
  private static final Method SUBMIT_APP_2 =
      method(QueueMetrics.class, "submitApp", String.class, boolean.class);
  private static final Method SUBMIT_APP_1 = method(QueueMetrics.class, "submitApp", String.class);
  private static final Method SUBMIT_ATTEMPT_2 =
      method(QueueMetrics.class, "submitAppAttempt", String.class, boolean.class);
  private static final Method SUBMIT_ATTEMPT_1 =
      method(QueueMetrics.class, "submitAppAttempt", String.class);
  @SuppressWarnings("rawtypes")
  private static final Constructor<SchedulerApplication> APP_3 =
      constructor(Queue.class, String.class, boolean.class);
  @SuppressWarnings("rawtypes")
  private static final Constructor<SchedulerApplication> APP_2 =
      constructor(Queue.class, String.class);

  private HadoopCompat() {}

  /** Which Hadoop line this RM is: "3.4+" when it has the unmanaged-AM flag. */
  static String line() {
    return IS_UNMANAGED_AM != null ? "3.4+" : "3.3";
  }

  static boolean isUnmanagedAM(AppAddedSchedulerEvent e) {
    return IS_UNMANAGED_AM != null && (Boolean) invoke(IS_UNMANAGED_AM, e);
  }

  static void submitApp(QueueMetrics m, String user, boolean unmanagedAM) {
    if (SUBMIT_APP_2 != null) {
      invoke(SUBMIT_APP_2, m, user, unmanagedAM);
    } else {
      invoke(SUBMIT_APP_1, m, user);
    }
  }

  static void submitAppAttempt(QueueMetrics m, String user, boolean unmanagedAM) {
    if (SUBMIT_ATTEMPT_2 != null) {
      invoke(SUBMIT_ATTEMPT_2, m, user, unmanagedAM);
    } else {
      invoke(SUBMIT_ATTEMPT_1, m, user);
    }
  }

  @SuppressWarnings("unchecked")
  static <T extends org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt>
      SchedulerApplication<T> newApplication(Queue queue, String user, boolean unmanagedAM) {
    try {
      if (APP_3 != null) {
        return APP_3.newInstance(queue, user, unmanagedAM);
      }
      if (APP_2 != null) {
        return APP_2.newInstance(queue, user);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create a SchedulerApplication: " + e, e);
    }
    throw new IllegalStateException(
        "this Hadoop has neither SchedulerApplication(Queue, String) nor (Queue, String, boolean)");
  }

  private static Method method(Class<?> c, String name, Class<?>... args) {
    try {
      return c.getMethod(name, args);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  @SuppressWarnings("rawtypes")
  private static Constructor<SchedulerApplication> constructor(Class<?>... args) {
    try {
      return SchedulerApplication.class.getConstructor(args);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  private static Object invoke(Method m, Object target, Object... args) {
    if (m == null) {
      throw new IllegalStateException("this Hadoop lacks a method Spindle needs");
    }
    try {
      return m.invoke(target, args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("calling " + m + ": " + e, e);
    }
  }
}
