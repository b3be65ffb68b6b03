package org.spindle.yarn;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The plugin's JMX beans on the RM's /jmx page: registered over an older one, never fatal. */
public final class Beans {
  private static final Logger LOG = LoggerFactory.getLogger(Beans.class);

  private Beans() {}

  /** Registers {@code bean} as {@code name}, replacing a bean of a stopped RM in this JVM. */
  public static void register(String name, Object bean) {
    try {
      ObjectName n = new ObjectName(name);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      if (server.isRegistered(n)) {
        server.unregisterMBean(n);
      }
      server.registerMBean(bean, n);
    } catch (Exception e) {
      LOG.warn("cannot register the JMX bean " + name + ": " + e);
    }
  }

  public static void unregister(String name) {
    try {
      ObjectName n = new ObjectName(name);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      if (server.isRegistered(n)) {
        server.unregisterMBean(n);
      }
    } catch (Exception e) {
      LOG.warn("cannot unregister the JMX bean " + name + ": " + e);
    }
  }
}
