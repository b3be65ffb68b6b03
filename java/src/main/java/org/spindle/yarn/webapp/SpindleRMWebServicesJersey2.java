package org.spindle.yarn.webapp;

import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;

/**
 * {@link SpindleRMWebServices} for Hadoop 3.5+, whose REST layer is Jersey 2
 * and injects the RM and its configuration by name:
 * {@code yarn.webapp.custom.webservice.class = org.spindle.yarn.webapp.SpindleRMWebServicesJersey2}.
 */
@Singleton
@Path("/ws/v1/cluster")
public class SpindleRMWebServicesJersey2 extends RMWebServices {
  private final ResourceManager rm;

  @Inject
  public SpindleRMWebServicesJersey2(@Named("rm") ResourceManager rm,
      @Named("conf") Configuration conf) {
    super(rm, conf);
    this.rm = rm;
  }

  @GET
  @Path("/scheduler")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8",
      MediaType.APPLICATION_XML + "; charset=utf-8"})
  @Override
  public SchedulerTypeInfo getSchedulerInfo() {
    return SpindleRMWebServices.schedulerInfo(rm, this);
  }

  /** See {@link SpindleRMWebServices#getSpindle}. */
  @GET
  @Path("/spindle")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8"})
  public javax.ws.rs.core.Response getSpindle() {
    return SpindleRMWebServices.spindle(rm);
  }

  /** See {@link SpindleRMWebServices#getSpindleActivities}. */
  @GET
  @Path("/scheduler/spindle/activities")
  @Produces({MediaType.APPLICATION_JSON + "; charset=utf-8"})
  public javax.ws.rs.core.Response getSpindleActivities(
      @javax.ws.rs.QueryParam("app") String app, @javax.ws.rs.QueryParam("node") String node) {
    return SpindleRMWebServices.activities(rm, app, node);
  }

  SchedulerTypeInfo stockSchedulerInfo() {
    return super.getSchedulerInfo();
  }
}
