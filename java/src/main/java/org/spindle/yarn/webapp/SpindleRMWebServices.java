package org.spindle.yarn.webapp;

import com.google.inject.Inject;
import com.google.inject.Singleton;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;
import org.spindle.yarn.SpindleScheduler;

/**
 * The RM's REST API with /ws/v1/cluster/scheduler answered for
 * SpindleScheduler (stock RMWebServices answers 404 "Unknown scheduler
 * configured" for any scheduler that is not Capacity, Fair or Fifo).
 * Hadoop 3.4.x (Jersey 1, Guice):
 * {@code yarn.webapp.custom.webservice.class = org.spindle.yarn.webapp.SpindleRMWebServices}.
 * Hadoop 3.5+ (Jersey 2): {@link SpindleRMWebServicesJersey2}. Hadoop 3.3.x
 * has no such key: there the scheduler's state is on /jmx (the
 * SpindleScheduler bean).
 */
@Singleton
@Path("/ws/v1/cluster")
public class SpindleRMWebServices extends RMWebServices {
  private final ResourceManager rm;

  @Inject
  public SpindleRMWebServices(ResourceManager rm, Configuration conf) {
    super(rm, conf);
    this.rm = rm;
  }

  @GET
  @Path("/scheduler")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8",
      MediaType.APPLICATION_XML + "; charset=utf-8"})
  @Override
  public SchedulerTypeInfo getSchedulerInfo() {
    return schedulerInfo(rm, this);
  }

  /**
   * Spindle's counters as JSON: the CapacityScheduler mode's (the
   * SpindlePlacement bean's attributes) or the whole scheduler's; 404 when
   * Spindle does not run in this RM.
   */
  @GET
  @Path("/spindle")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8"})
  public javax.ws.rs.core.Response getSpindle() {
    return spindle(rm);
  }

  /**
   * Why idle heartbeats granted nothing: the whole-scheduler mode's record
   * (JSON), about application {@code app} and/or host {@code node}; 404
   * naming an unknown app or host, or when Spindle is not the scheduler.
   */
  @GET
  @Path("/scheduler/spindle/activities")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8"})
  public javax.ws.rs.core.Response getSpindleActivities(
      @javax.ws.rs.QueryParam("app") String app, @javax.ws.rs.QueryParam("node") String node) {
    return activities(rm, app, node);
  }

  static javax.ws.rs.core.Response activities(ResourceManager rm, String app, String node) {
    if (!(rm.getResourceScheduler() instanceof SpindleScheduler)) {
      return text(404, "Spindle's activities are recorded when it is the scheduler; in the"
          + " CapacityScheduler mode see /ws/v1/cluster/scheduler/activities");
    }
    try {
      String json = ((SpindleScheduler) rm.getResourceScheduler()).activities(app, node);
      return javax.ws.rs.core.Response.ok(json, MediaType.APPLICATION_JSON).build();
    } catch (IllegalArgumentException e) {
      return text(404, e.getMessage());
    } catch (IllegalStateException e) {
      return text(500, e.getMessage());
    }
  }

  private static javax.ws.rs.core.Response text(int status, String message) {
    return javax.ws.rs.core.Response.status(status).type(MediaType.TEXT_PLAIN)
        .entity(message).build();
  }

  static javax.ws.rs.core.Response spindle(ResourceManager rm) {
    java.util.Map<String, Object> m = SpindleCounters.of(rm);
    if (m == null) {
      return javax.ws.rs.core.Response.status(404).type(MediaType.TEXT_PLAIN)
          .entity("Spindle does not run in this ResourceManager").build();
    }
    return javax.ws.rs.core.Response.ok(SpindleCounters.json(m), MediaType.APPLICATION_JSON)
        .build();
  }

  /** Spindle's info when it is the scheduler, else the stock answer. */
  static SchedulerTypeInfo schedulerInfo(ResourceManager rm, RMWebServices stock) {
    if (rm.getResourceScheduler() instanceof SpindleScheduler) {
      return new SchedulerTypeInfo(new SpindleSchedulerInfo(
          (SpindleScheduler) rm.getResourceScheduler(), rm.getRMContext()));
    }
    return stock instanceof SpindleRMWebServices
        ? ((SpindleRMWebServices) stock).stockSchedulerInfo()
        : ((SpindleRMWebServicesJersey2) stock).stockSchedulerInfo();
  }

  SchedulerTypeInfo stockSchedulerInfo() {
    return super.getSchedulerInfo();
  }
}
