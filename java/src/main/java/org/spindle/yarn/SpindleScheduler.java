package org.spindle.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spindle.core.SpindleCore;

/**
 * The ResourceManager scheduler: {@code yarn.resourcemanager.scheduler.class =
 * org.spindle.yarn.SpindleScheduler}. FifoScheduler's structure (one default
 * queue, apps in submission order), but each heartbeat's placement comes from
 * the Spindle core; if the core throws, that heartbeat is allocated as
 * FifoScheduler would (see {@link CoreBridge}). Fallbacks are counted in the
 * JMX bean {@code Hadoop:service=ResourceManager,name=SpindleScheduler},
 * shown on the RM's /jmx page.
 */
public class SpindleScheduler extends AbstractYarnScheduler<SpindleAppAttempt, SpindleNode>
    implements Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(SpindleScheduler.class);
  public static final String QUEUE_NAME = "default";
  private static final String INCLUDE_PORT = "yarn.scheduler.include-port-in-node-name";
  private static final String MIN_MB = "yarn.scheduler.minimum-allocation-mb";
  private static final String MAX_MB = "yarn.scheduler.maximum-allocation-mb";
  private static final String BEAN = "Hadoop:service=ResourceManager,name=SpindleScheduler";

  private Configuration conf;
  private boolean usePortForNodeName;
  private ActiveUsersManager activeUsersManager;
  private QueueMetrics metrics;
  private SpindleSettings settings;
  private CoreBridge bridge;
  private final ResourceCalculator calculator = new DefaultResourceCalculator();
  private final Resource usedResource = Resources.createResource(0, 0);
  /** The available resources last given to the queue metrics (reused). */
  private final Resource available = Resources.createResource(0, 0);
  private boolean availableSet;
  /**
   * True while {@link #nodeUpdate} processes the node's reports (under the
   * scheduler's monitor): completions leave the available-resources metric
   * to the end of the heartbeat.
   */
  private boolean inNodeUpdate;
  /** Reused per heartbeat: allocations on the node being served. */
  private final NodeSink sink = new NodeSink();
  private final CoreSink coreSink = new CoreSink();
  /**
   * Containers placed on the core's grants, until they complete: only these
   * are reported back as finished, so the core's per-node running counts
   * stay exact (AM, FIFO and recovered containers are not the core's).
   * Guarded by the scheduler's monitor.
   */
  private final Set<ContainerId> coreContainers = new HashSet<>();
  /**
   * {@code applications} (a skip list, for FIFO's app-id order) by hash, for the look-ups of
   * every heartbeat: an app and its attempt per grant, launched and completed container. The
   * skip-list gets at 1,000 apps were ~6 % of the heartbeat at 10,000 nodes (issue 23).
   * Changed with {@code applications}, under the scheduler's monitor; Hadoop only reads that.
   */
  private final Map<ApplicationId, SchedulerApplication<SpindleAppAttempt>> appIndex =
      new ConcurrentHashMap<>();
  /** Apps whose AM is unmanaged (3.4+ reports it; the metrics calls take the flag). */
  private final Set<ApplicationId> unmanagedApps = ConcurrentHashMap.newKeySet();
  /** When each app reached the scheduler: the core orders apps by it, across attempts. */
  private final Map<ApplicationId, Long> submitted = new ConcurrentHashMap<>();
  /** Each app's weight in the core ({@link AppWeights}), across attempts. */
  private final Map<ApplicationId, AppWeights.Weight> weights = new ConcurrentHashMap<>();
  /** The AM container's priority (RMAppAttemptImpl.AM_CONTAINER_PRIORITY). */
  static final int AM_PRIORITY = 0;
  /**
   * Attempts whose AM ask waits for room under spindle.am.max-share, in
   * app-id order, with when each was held ({@link #nextHeld} picks the next);
   * the core hears of the ask on admission. Guarded by itself.
   */
  private final Map<ApplicationAttemptId, Long> heldAms = new TreeMap<>();
  /**
   * spindle.am.admit-on-progress: when each admitted AM was admitted (a recovered one, not
   * here, counts as admitted long ago), and the attempts that have asked for a task.
   */
  private final Map<ApplicationAttemptId, Long> admittedAt = new ConcurrentHashMap<>();
  private final Set<ApplicationAttemptId> taskAsked = ConcurrentHashMap.newKeySet();
  /**
   * Since when each admitted app has been seen starved (asking for tasks, running none);
   * {@link #STARVED_TOO_LONG} once past spindle.am.progress-wait-ms (logged once). Under heldAms.
   */
  private final Map<ApplicationAttemptId, Long> starvedSince = new java.util.HashMap<>();
  private static final long STARVED_TOO_LONG = Long.MIN_VALUE;
  /** Racks with nodes, and their node counts: spindle.am.admit-on-progress lets this many AMs start at once. */
  private final Map<String, Integer> rackNodes = new ConcurrentHashMap<>();
  private final CapabilityCache capabilities = new CapabilityCache();
  /** One walk over the admitted apps ({@link #walkAdmitted}); under heldAms. */
  private long admittedAmMb;
  private int startingAms;
  private ApplicationAttemptId starvedApp;
  /** What held the first held AM back when last logged: 0 nothing, 1 the share, 2 a starved app, 3 starting AMs. */
  private int loggedReason;
  private ApplicationAttemptId loggedStarved;

  private final Queue queue = new Queue() {
    @Override
    public String getQueueName() {
      return QUEUE_NAME;
    }

    @Override
    public QueueMetrics getMetrics() {
      return metrics;
    }

    @Override
    public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
      QueueInfo info = Records.newRecord(QueueInfo.class);
      info.setQueueName(QUEUE_NAME);
      info.setCapacity(1.0f);
      long cluster = getClusterResource().getMemorySize();
      info.setCurrentCapacity(cluster == 0 ? 0.0f : (float) usedResource.getMemorySize() / cluster);
      info.setMaximumCapacity(1.0f);
      info.setChildQueues(new ArrayList<QueueInfo>());
      info.setQueueState(QueueState.RUNNING);
      return info;
    }

    @Override
    public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
      QueueUserACLInfo info = Records.newRecord(QueueUserACLInfo.class);
      info.setQueueName(QUEUE_NAME);
      info.setUserAcls(Arrays.asList(QueueACL.values()));
      return Collections.singletonList(info);
    }

    @Override
    public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
      return true; // FifoScheduler's default queue allows everyone ("*")
    }

    @Override
    public ActiveUsersManager getAbstractUsersManager() {
      return activeUsersManager;
    }

    @Override
    public void recoverContainer(Resource clusterResource, SchedulerApplicationAttempt attempt,
        RMContainer rmContainer) {
      if (rmContainer.getState().equals(RMContainerState.COMPLETED)) {
        return;
      }
      Resources.addTo(usedResource, rmContainer.getAllocatedResource());
      updateAppHeadRoom(attempt);
      updateAvailableResourcesMetrics();
    }

    @Override
    public Set<String> getAccessibleNodeLabels() {
      return null;
    }

    @Override
    public String getDefaultNodeLabelExpression() {
      return null;
    }

    @Override
    public void incPendingResource(String nodeLabel, Resource resourceToInc) {}

    @Override
    public void decPendingResource(String nodeLabel, Resource resourceToDec) {}

    @Override
    public Priority getDefaultApplicationPriority() {
      return null;
    }

    @Override
    public void incReservedResource(String partition, Resource reservedRes) {}

    @Override
    public void decReservedResource(String partition, Resource reservedRes) {}
  };

  public SpindleScheduler() {
    super(SpindleScheduler.class.getName());
  }

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    initScheduler(conf);
    super.serviceInit(conf);
    // The scheduling monitors (yarn.resourcemanager.scheduler.monitor.*), as
    // FifoScheduler, CapacityScheduler and FairScheduler start them.
    schedulingMonitorManager.initialize(rmContext, conf);
  }

  private synchronized void initScheduler(Configuration conf) {
    validateConf(conf);
    applications = new ConcurrentSkipListMap<>(); // app-id order, as FIFO
    appIndex.clear();
    minimumAllocation = super.getMinimumAllocation();
    initMaximumResourceCapability(super.getMaximumAllocation());
    usePortForNodeName = conf.getBoolean(INCLUDE_PORT, false);
    metrics = QueueMetrics.forQueue(QUEUE_NAME, null, false, conf);
    activeUsersManager = new ActiveUsersManager(metrics);
    settings = CoreSetup.settings(conf);
    bridge = new CoreBridge(CoreSetup.factory.apply(settings));
    splits = new SplitFiles(conf, settings, bridge);
    registerBean();
    LOG.info("Spindle scheduler: policy " + settings.core.policy + ", fallback "
        + settings.fallback + ", Hadoop " + HadoopCompat.line() + " API");
  }

  /** FifoScheduler's check of the allocation bounds (yarn-default values as defaults). */
  private static void validateConf(Configuration conf) {
    int min = conf.getInt(MIN_MB, 1024);
    int max = conf.getInt(MAX_MB, 8192);
    if (min <= 0 || min > max) {
      throw new IllegalArgumentException("invalid scheduler memory allocation: " + MIN_MB + "="
          + min + ", " + MAX_MB + "=" + max + "; both must be positive and min <= max");
    }
  }

  /**
   * Counters and state for the RM's /jmx page: the scheduler's REST view on
   * every Hadoop line (3.3.x cannot serve /ws/v1/cluster/scheduler for a
   * plugin scheduler).
   */
  public interface SpindleSchedulerMXBean {
    long getFallbackHeartbeats();

    long getCoreErrors();

    String getPolicy();

    int getApplications();

    int getNodes();

    long getUsedMemoryMB();

    long getClusterMemoryMB();

    long getExactInputApps();

    long getSplitReadFailures();

    /** Idle heartbeats and passed-over apps because no app asks. */
    long getIdleNoAsk();

    /** ... because the plan put no work on the node. */
    long getIdleNoPlannedWork();

    /** ... because an app waits for a node holding its data. */
    long getIdleLocalityWait();

    /** ... because the job order put another app first. */
    long getIdleJobOrder();

    /** ... because no ask fits the node's free resources. */
    long getIdleNoRoom();
  }

  private void registerBean() {
    final CoreBridge b = bridge;
    final String policy = settings.core.policy;
    Beans.register(BEAN, new SpindleSchedulerMXBean() {
      @Override
      public long getFallbackHeartbeats() {
        return b.fallbackHeartbeats();
      }

      @Override
      public long getCoreErrors() {
        return b.coreErrors();
      }

      @Override
      public String getPolicy() {
        return policy;
      }

      @Override
      public int getApplications() {
        return applications.size();
      }

      @Override
      public int getNodes() {
        return getNumClusterNodes();
      }

      @Override
      public long getUsedMemoryMB() {
        return usedResource().getMemorySize();
      }

      @Override
      public long getClusterMemoryMB() {
        return getClusterResource().getMemorySize();
      }

      @Override
      public long getExactInputApps() {
        return splits.exactInputs();
      }

      @Override
      public long getSplitReadFailures() {
        return splits.failures();
      }

      @Override
      public long getIdleNoAsk() {
        return reason(b, 0);
      }

      @Override
      public long getIdleNoPlannedWork() {
        return reason(b, 1);
      }

      @Override
      public long getIdleLocalityWait() {
        return reason(b, 2);
      }

      @Override
      public long getIdleJobOrder() {
        return reason(b, 3);
      }

      @Override
      public long getIdleNoRoom() {
        return reason(b, 4);
      }
    });
  }

  private static long reason(CoreBridge b, int i) {
    long[] c = b.reasonCounts();
    return i < c.length ? c[i] : 0;
  }

  /**
   * Why idle heartbeats granted nothing (JSON; REST
   * /ws/v1/cluster/scheduler/spindle/activities), about {@code app} on {@code host} when not
   * null or empty.
   */
  public String activities(String app, String host) {
    return bridge.activities(app == null || app.isEmpty() ? null : attemptOf(app),
        host == null || host.isEmpty() ? null : host);
  }

  /**
   * The core knows an app by its attempt: an application id names its
   * current attempt; anything else is passed as given (an attempt id, or a
   * name the core will refuse by name).
   */
  private String attemptOf(String app) {
    try {
      SchedulerApplication<SpindleAppAttempt> a =
          applications.get(org.apache.hadoop.yarn.api.records.ApplicationId.fromString(app));
      SpindleAppAttempt attempt = a == null ? null : a.getCurrentAppAttempt();
      return attempt == null ? app : attempt.getApplicationAttemptId().toString();
    } catch (IllegalArgumentException notAnApplicationId) {
      return app;
    }
  }

  /** Heartbeats allocated (wholly or partly) by the FIFO fallback. */
  public long getFallbackHeartbeats() {
    return bridge.fallbackHeartbeats();
  }

  /** Core calls that threw. */
  public long getCoreErrors() {
    return bridge.coreErrors();
  }

  CoreBridge bridgeForTest() {
    return bridge;
  }

  /** The memory and vcores of live containers (a copy). */
  synchronized Resource usedResource() {
    return Resources.clone(usedResource);
  }

  private SplitFiles splits;

  @Override
  public void serviceStop() throws Exception {
    if (splits != null) {
      splits.close();
    }
    if (bridge != null) {
      bridge.close();
    }
    Beans.unregister(BEAN);
    super.serviceStop();
  }

  @Override
  public synchronized void recoverContainersOnNode(List<NMContainerStatus> containerReports,
      RMNode nm) {
    // Under the scheduler's monitor, as FifoScheduler: recovery adds to
    // usedResource, which completions (also under the monitor) subtract from.
    super.recoverContainersOnNode(containerReports, nm);
    SpindleNode node = (SpindleNode) getNode(nm.getNodeID());
    if (node == null || containerReports == null) {
      return;
    }
    // The core comes back with the running containers too: they load their
    // node in its next plan, and their ends are reported like its own grants'.
    for (NMContainerStatus report : containerReports) {
      ContainerId id = report.getContainerId();
      SpindleAppAttempt attempt = getCurrentAttemptForContainer(id);
      if (attempt == null || attempt.getRMContainer(id) == null || coreContainers.contains(id)
          || !attempt.getApplicationAttemptId().equals(id.getApplicationAttemptId())) {
        continue; // not recovered (killed, completed, an old attempt's), or counted already
      }
      if (bridge.containerRecovered(node.getNodeName(), attempt.getApplicationAttemptId())) {
        coreContainers.add(id);
      }
    }
  }

  @Override
  public synchronized void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public synchronized Configuration getConf() {
    return conf;
  }

  @Override
  public int getNumClusterNodes() {
    return nodeTracker.nodeCount();
  }

  @Override
  public synchronized void setRMContext(RMContext rmContext) {
    this.rmContext = rmContext;
  }

  @Override
  public synchronized void reinitialize(Configuration conf, RMContext rmContext)
      throws IOException {
    setConf(conf);
    super.reinitialize(conf, rmContext);
  }

  /** ResourceRequests as the core's asks. */
  public static List<CoreBridge.Ask> toAsks(List<ResourceRequest> requests) {
    List<CoreBridge.Ask> asks = new ArrayList<>(requests.size());
    for (ResourceRequest r : requests) {
      Resource c = r.getCapability();
      asks.add(new CoreBridge.Ask(r.getPriority().getPriority(), r.getResourceName(),
          r.getNumContainers(), c.getMemorySize(), c.getVirtualCores(), r.getRelaxLocality()));
    }
    return asks;
  }

  /** Hadoop's normalisation, then equal capabilities shared ({@link CapabilityCache}). */
  @Override
  protected void normalizeResourceRequests(List<ResourceRequest> asks, String queueName) {
    super.normalizeResourceRequests(asks, queueName);
    capabilities.share(asks);
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    SpindleAppAttempt app = getApplicationAttempt(attemptId);
    if (app == null || !app.getApplicationAttemptId().equals(attemptId)) {
      LOG.error("allocate for removed or unknown application attempt " + attemptId);
      return EMPTY_ALLOCATION;
    }
    normalizeResourceRequests(ask);
    releaseContainers(release, app);
    forwardProgress(attemptId);
    synchronized (app) {
      if (app.isStopped()) {
        return EMPTY_ALLOCATION;
      }
      if (!ask.isEmpty()) {
        app.updateResourceRequests(ask);
        noteTaskAsk(attemptId, ask);
        if (!holdAm(app, ask)) {
          bridge.asks(attemptId, toAsks(ask));
        }
      }
      app.updateBlacklist(blacklistAdditions, blacklistRemovals);
      if (!isEmpty(blacklistAdditions) || !isEmpty(blacklistRemovals)) {
        resyncAllAsks(app); // blacklisted hosts and racks ask for nothing in the core
      }
      // Headroom when the AM asks, not for every app on every node heartbeat.
      updateAppHeadRoom(app);
      Resource headroom = app.getHeadroom();
      app.setApplicationHeadroomForMetrics(headroom);
      return new Allocation(app.pullNewlyAllocatedContainers(), headroom, null, null, null,
          app.pullUpdatedNMTokens());
    }
  }

  /**
   * The AM's progress, as the RM holds it for the attempt (the AMS passes
   * each allocate's progress, clamped to 0..1, to the attempt through the
   * RM's dispatcher, so this usually sees the previous allocate's report),
   * to the core; the bridge skips repeats.
   */
  private void forwardProgress(ApplicationAttemptId attemptId) {
    RMApp rmApp = rmContext == null ? null : rmContext.getRMApps().get(attemptId.getApplicationId());
    RMAppAttempt attempt = rmApp == null ? null : rmApp.getCurrentAppAttempt();
    if (attempt != null && attempt.getAppAttemptId().equals(attemptId)) {
      bridge.progress(attemptId, attempt.getProgress(), System.currentTimeMillis());
    }
  }

  /**
   * The priority an app gets, as the CapacityScheduler decides it (the
   * default would make every app 0): the requested one, 0 if none, capped at
   * yarn.cluster.max-application-priority (0 by default: raise it to let
   * priorities weigh). It sets the app's weight in the core ({@link AppWeights}).
   */
  @Override
  public Priority checkAndGetApplicationPriority(Priority requested, UserGroupInformation user,
      String queueName, ApplicationId applicationId) throws YarnException {
    Priority p = requested != null ? requested : Priority.newInstance(0);
    Priority max = getMaxClusterLevelAppPriority();
    if (max != null && p.getPriority() > max.getPriority()) {
      p = max;
    }
    return Priority.newInstance(p.getPriority());
  }

  /**
   * A priority update (yarn application -updatePriority): stored as the
   * CapacityScheduler stores it (submission context and state store, which
   * completes {@code future}), and the app's new weight goes to the core
   * unless a spindle.job.weight tag fixes it.
   */
  @Override
  public synchronized Priority updateApplicationPriority(Priority newPriority,
      ApplicationId applicationId, SettableFuture<Object> future, UserGroupInformation user)
      throws YarnException {
    SchedulerApplication<SpindleAppAttempt> app = applications.get(applicationId);
    RMApp rmApp = rmContext.getRMApps().get(applicationId);
    if (app == null || rmApp == null) {
      throw new YarnException("Application '" + applicationId
          + "' is not present, hence could not change priority.");
    }
    Priority p = checkAndGetApplicationPriority(newPriority, user, rmApp.getQueue(),
        applicationId);
    if (p.equals(app.getPriority())) {
      future.set(null);
      return p;
    }
    rmApp.getApplicationSubmissionContext().setPriority(p);
    ApplicationStateData state = ApplicationStateData.newInstance(rmApp.getSubmitTime(),
        rmApp.getStartTime(), rmApp.getApplicationSubmissionContext(), rmApp.getUser(),
        rmApp.getCallerContext());
    state.setApplicationTimeouts(rmApp.getApplicationTimeouts());
    state.setLaunchTime(rmApp.getLaunchTime());
    rmContext.getStateStore().updateApplicationStateSynchronously(state, false, future);
    app.setPriority(p);
    SpindleAppAttempt attempt = app.getCurrentAppAttempt();
    if (attempt != null) {
      attempt.setPriority(p);
    }
    AppWeights.Weight old = weights.get(applicationId);
    if (old == null || !old.fromTag) {
      AppWeights.Weight w = new AppWeights.Weight(AppWeights.ofPriority(p.getPriority()), false,
          null);
      weights.put(applicationId, w);
      if (attempt != null) {
        bridge.weightChanged(attempt.getApplicationAttemptId(), w.value);
      }
    }
    LOG.info("Priority " + p.getPriority() + " set for application " + applicationId
        + ", weight " + weights.get(applicationId).value);
    return p;
  }

  /** Remembers that the attempt asked for a task (any priority but the AM's, a count above 0). */
  private void noteTaskAsk(ApplicationAttemptId id, List<ResourceRequest> ask) {
    if (!settings.amAdmitOnProgress || taskAsked.contains(id)) {
      return;
    }
    for (ResourceRequest r : ask) {
      if (r.getPriority().getPriority() != AM_PRIORITY && r.getNumContainers() > 0) {
        taskAsked.add(id);
        return;
      }
    }
  }

  /**
   * Holds back the AM ask of {@code app} while the AMs already admitted hold
   * spindle.am.max-share of the cluster's memory (as the CapacityScheduler
   * keeps an app inactive past maximum-am-resource-percent, and the
   * FairScheduler past maxAMShare): many concurrent jobs would otherwise
   * fill the cluster with AMs whose tasks find no room. Under
   * spindle.am.admit-on-progress also while the admitted apps do not progress
   * ({@link #walkAdmitted}). True if held.
   */
  private boolean holdAm(SpindleAppAttempt app, List<ResourceRequest> ask) {
    if (unmanagedApps.contains(app.getApplicationId()) || !app.getLiveContainers().isEmpty()
        || rmContext == null) {
      return false;
    }
    boolean am = false;
    for (ResourceRequest r : ask) {
      am |= r.getPriority().getPriority() == AM_PRIORITY;
    }
    RMApp rmApp = rmContext.getRMApps().get(app.getApplicationId());
    RMAppAttempt ra = rmApp == null ? null : rmApp.getCurrentAppAttempt();
    if (!am || ra == null || ra.getMasterContainer() != null) {
      return false;
    }
    ApplicationAttemptId id = app.getApplicationAttemptId();
    long now = System.currentTimeMillis();
    synchronized (heldAms) {
      if (heldAms.containsKey(id)) {
        return true; // a repeated AM ask while held: the core hears of it on admission
      }
      if (admittedAt.containsKey(id)) {
        return false; // admitted already: the AM re-sends its ask
      }
      walkAdmitted(id, now);
      int why = heldAms.isEmpty() ? holdReason(id) : 1;
      if (why == 0) {
        admittedAt.put(id, now);
        return false;
      }
      heldAms.put(id, now);
      if (heldAms.size() == 1) {
        loggedReason = why;
        loggedStarved = starvedApp;
      }
      LOG.info("Application master of " + id + " waits: " + (heldAms.size() > 1
          ? heldAms.size() + " AMs held" : reasonText(why)));
      return true;
    }
  }

  /**
   * Admits held AMs in app-id order while there is room and (under
   * spindle.am.admit-on-progress) the admitted apps progress; the first that does not fit
   * stops it. One walk over the apps per call, and only while AMs are held.
   */
  private void admitHeldAms() {
    List<SpindleAppAttempt> admitted = new ArrayList<>();
    long now = System.currentTimeMillis();
    synchronized (heldAms) {
      walkAdmitted(null, now);
      while (!heldAms.isEmpty()) {
        ApplicationAttemptId id = nextHeld(now);
        if (id == null) {
          break;
        }
        SpindleAppAttempt a = getApplicationAttempt(id);
        int why = holdReason(id);
        if (why != 0) {
          if (why != loggedReason || (why == 2 && !starvedApp.equals(loggedStarved))) {
            LOG.info("Held application masters (" + heldAms.size() + ", next " + id
                + ") wait: " + reasonText(why));
            loggedReason = why;
            loggedStarved = starvedApp;
          }
          break;
        }
        heldAms.remove(id);
        admitted.add(a);
        admittedAt.put(id, now);
        admittedAmMb += amMb(id.getApplicationId());
        startingAms++;
      }
      if (heldAms.isEmpty()) {
        loggedReason = 0;
      }
    }
    for (SpindleAppAttempt a : admitted) {
      int maps = splits.maps(a.getApplicationAttemptId());
      LOG.info("Application master of " + a.getApplicationAttemptId() + " admitted"
          + (maps >= 0 ? " (" + maps + " maps)" : ""));
      resyncAsks(a, AM_PRIORITY);
    }
  }

  /**
   * The held AM to admit next (stale ones dropped on the way), null if none. Without
   * spindle.am.admit-on-progress the first in app-id order. With it, as the core orders
   * tasks (weighted-remaining): the fewest maps over the app's weight first (maps known
   * from its split file; an app without one comes after those with one), except that an
   * AM held spindle.am.progress-wait-ms or longer goes before all of those, in app-id
   * order, so that a big job is not passed over for ever. One look at each held AM. Under
   * heldAms.
   */
  private ApplicationAttemptId nextHeld(long now) {
    ApplicationAttemptId best = null;
    double bestCost = 0;
    Iterator<Map.Entry<ApplicationAttemptId, Long>> it = heldAms.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<ApplicationAttemptId, Long> e = it.next();
      ApplicationAttemptId id = e.getKey();
      SpindleAppAttempt a = getApplicationAttempt(id);
      if (a == null || a.isStopped() || !a.getApplicationAttemptId().equals(id)) {
        it.remove();
        continue;
      }
      if (!settings.amAdmitOnProgress) {
        return id;
      }
      double cost;
      if (now - e.getValue() >= settings.amProgressWaitMs) {
        cost = -1; // overdue: app-id order among the overdue, before the rest
      } else {
        int maps = splits.maps(id);
        AppWeights.Weight w = weights.get(id.getApplicationId());
        cost = maps < 0 ? Double.MAX_VALUE : maps / (w != null && w.value > 0 ? w.value : 1.0);
      }
      if (best == null || cost < bestCost) {
        best = id;
        bestCost = cost;
      }
    }
    return best;
  }

  /**
   * Why the AM of {@code id} may not be admitted now, from the last {@link #walkAdmitted}:
   * 0 it may, 1 no room under spindle.am.max-share, 2 an admitted app is starved, 3 as many
   * AMs as racks are starting. The first AM always gets in. Under heldAms.
   */
  private int holdReason(ApplicationAttemptId id) {
    long used = admittedAmMb;
    if (used == 0) {
      return 0;
    }
    if (used + amMb(id.getApplicationId())
        > settings.amMaxShare * getClusterResource().getMemorySize()) {
      return 1;
    }
    if (!settings.amAdmitOnProgress) {
      return 0;
    }
    if (starvedApp != null) {
      return 2;
    }
    return startingAms >= Math.max(1, rackNodes.size()) ? 3 : 0;
  }

  private String reasonText(int why) {
    switch (why) {
      case 1:
        return "AMs hold " + admittedAmMb + " MB of " + getClusterResource().getMemorySize()
            + " MB, " + SpindleSettings.AM_MAX_SHARE + " = " + settings.amMaxShare;
      case 2:
        return starvedApp + " asks for tasks and runs none (" + SpindleSettings.AM_ADMIT_ON_PROGRESS
            + "; at most " + settings.amProgressWaitMs + " ms)";
      case 3:
        return startingAms + " admitted AMs have not asked for a task yet, one per rack may ("
            + SpindleSettings.AM_ADMIT_ON_PROGRESS + "; each for at most "
            + settings.amProgressWaitMs + " ms)";
      default:
        return "nothing";
    }
  }

  /**
   * One walk over the admitted apps (live, managed, not held, {@code self} left out):
   * the memory of their AMs, and under spindle.am.admit-on-progress how many are still
   * starting (admitted less than spindle.am.progress-wait-ms ago, no task asked, none
   * running) and one that is starved (asks for tasks, runs none, for less than
   * spindle.am.progress-wait-ms so far). Under heldAms.
   */
  private void walkAdmitted(ApplicationAttemptId self, long now) {
    long mb = 0;
    int starting = 0;
    ApplicationAttemptId starved = null;
    boolean progress = settings.amAdmitOnProgress;
    long wait = settings.amProgressWaitMs;
    for (Map.Entry<ApplicationId, SchedulerApplication<SpindleAppAttempt>> e
        : applications.entrySet()) {
      SpindleAppAttempt a = e.getValue().getCurrentAppAttempt();
      if (a == null || a.isStopped() || unmanagedApps.contains(e.getKey())) {
        continue;
      }
      ApplicationAttemptId id = a.getApplicationAttemptId();
      if (id.equals(self) || heldAms.containsKey(id)) {
        continue;
      }
      mb += amMb(e.getKey());
      if (!progress || runsTask(a)) {
        if (progress) {
          starvedSince.remove(id);
        }
        continue;
      }
      if (!taskAsked.contains(id)) {
        Long at = admittedAt.get(id);
        if (at != null && now - at < wait) {
          starting++;
        }
        continue;
      }
      if (!asksTask(a)) {
        starvedSince.remove(id);
        continue;
      }
      Long since = starvedSince.get(id);
      if (since == null) {
        starvedSince.put(id, now);
        since = now;
      }
      if (since == STARVED_TOO_LONG) {
        continue;
      }
      if (now - since >= wait) {
        starvedSince.put(id, STARVED_TOO_LONG);
        LOG.info(id + " has asked for tasks and run none for " + wait + " ms ("
            + SpindleSettings.AM_PROGRESS_WAIT + "): it no longer holds back held AMs");
        continue;
      }
      if (starved == null) {
        starved = id;
      }
    }
    admittedAmMb = mb;
    startingAms = starting;
    starvedApp = starved;
  }

  /** Whether a live container of {@code a} is not its AM's (at most one is: a short look). */
  private static boolean runsTask(SpindleAppAttempt a) {
    for (RMContainer c : a.getLiveContainersMap().values()) {
      if (c.getContainer().getPriority().getPriority() != AM_PRIORITY) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code a} has a pending ask at a priority other than its AM's. */
  private static boolean asksTask(SpindleAppAttempt a) {
    for (SchedulerRequestKey key : a.getSchedulerKeys()) {
      if (key.getPriority().getPriority() != AM_PRIORITY
          && a.getPendingAsk(key, ResourceRequest.ANY).getCount() > 0) {
        return true;
      }
    }
    return false;
  }

  /** The memory of the app's AM container, as it asked for it. */
  private long amMb(ApplicationId app) {
    RMApp rmApp = rmContext.getRMApps().get(app);
    List<ResourceRequest> r = rmApp == null ? null : rmApp.getAMResourceRequests();
    return r == null || r.isEmpty() ? minimumAllocation.getMemorySize()
        : r.get(0).getCapability().getMemorySize();
  }

  private static boolean isEmpty(List<?> l) {
    return l == null || l.isEmpty();
  }

  private synchronized void addApplication(ApplicationId id, String user, boolean recovering,
      boolean unmanagedAM, Priority priority) {
    SchedulerApplication<SpindleAppAttempt> app =
        HadoopCompat.newApplication(queue, user, unmanagedAM);
    Priority p = priority != null ? priority : Priority.newInstance(0);
    app.setPriority(p);
    applications.put(id, app);
    appIndex.put(id, app);
    submitted.put(id, System.currentTimeMillis());
    RMApp rmApp = rmContext == null ? null : rmContext.getRMApps().get(id);
    AppWeights.Weight w = AppWeights.of(id.toString(), p.getPriority(),
        rmApp == null ? null : rmApp.getApplicationTags());
    if (w.warning != null) {
      LOG.warn(w.warning);
    }
    weights.put(id, w);
    if (unmanagedAM) {
      unmanagedApps.add(id);
    }
    HadoopCompat.submitApp(metrics, user, unmanagedAM);
    LOG.info("Accepted application " + id + " from user " + user + ", " + applications.size()
        + " applications");
    if (!recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(id, RMAppEventType.APP_ACCEPTED));
    }
  }

  private synchronized void addApplicationAttempt(ApplicationAttemptId attemptId,
      boolean transferState, boolean recovering) {
    SchedulerApplication<SpindleAppAttempt> app = applications.get(attemptId.getApplicationId());
    if (app == null) {
      LOG.error("attempt " + attemptId + " of an unknown application");
      return;
    }
    String user = app.getUser();
    SpindleAppAttempt attempt =
        new SpindleAppAttempt(attemptId, user, queue, activeUsersManager, rmContext);
    if (transferState) {
      attempt.transferStateFromPreviousAttempt(app.getCurrentAppAttempt());
    }
    attempt.setPriority(app.getPriority());
    app.setCurrentAppAttempt(attempt);
    HadoopCompat.submitAppAttempt(metrics, user,
        unmanagedApps.contains(attemptId.getApplicationId()));
    Long submit = submitted.get(attemptId.getApplicationId());
    AppWeights.Weight w = weights.get(attemptId.getApplicationId());
    bridge.appAdded(attemptId, w != null ? w.value : 1.0,
        submit != null ? submit : System.currentTimeMillis());
    splits.request(rmContext, attemptId, user);
    LOG.info("Added application attempt " + attemptId + " from user " + user);
    if (!recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppAttemptEvent(attemptId, RMAppAttemptEventType.ATTEMPT_ADDED));
    }
  }

  private synchronized void doneApplication(ApplicationId id, RMAppState finalState) {
    SchedulerApplication<SpindleAppAttempt> app = applications.get(id);
    if (app == null) {
      LOG.warn("Couldn't find application " + id);
      return;
    }
    activeUsersManager.deactivateApplication(app.getUser(), id);
    app.stop(finalState);
    applications.remove(id);
    appIndex.remove(id);
    unmanagedApps.remove(id);
    submitted.remove(id);
    weights.remove(id);
  }

  private synchronized void doneApplicationAttempt(ApplicationAttemptId attemptId,
      RMAppAttemptState finalState, boolean keepContainers) {
    synchronized (heldAms) {
      heldAms.remove(attemptId);
      starvedSince.remove(attemptId);
    }
    admittedAt.remove(attemptId);
    taskAsked.remove(attemptId);
    splits.forget(attemptId);
    SpindleAppAttempt attempt = getApplicationAttempt(attemptId);
    bridge.appRemoved(attemptId);
    if (attempt == null) {
      LOG.warn("Unknown application attempt " + attemptId + " has completed");
      return;
    }
    for (RMContainer c : attempt.getLiveContainers()) {
      if (keepContainers && c.getState().equals(RMContainerState.RUNNING)) {
        continue; // work-preserving AM restart
      }
      completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
          c.getContainerId(), SchedulerUtils.COMPLETED_APPLICATION), RMContainerEventType.KILL);
    }
    attempt.stop(finalState);
  }

  @Override
  protected synchronized void nodeUpdate(RMNode nm) {
    // The node's completed containers each change the available resources:
    // the queue metric is set once, at the end of this heartbeat.
    inNodeUpdate = true;
    try {
      super.nodeUpdate(nm);
    } finally {
      inNodeUpdate = false;
    }
    if (rmContext.isWorkPreservingRecoveryEnabled()
        && !rmContext.isSchedulerReadyForAllocatingContainers()) {
      updateAvailableResourcesMetrics();
      return;
    }
    if (!heldAms.isEmpty()) { // a racy look is enough: the next heartbeat looks again
      admitHeldAms();
    }
    SpindleNode node = (SpindleNode) getNode(nm.getNodeID());
    if (node != null && Resources.greaterThanOrEqual(calculator, getClusterResource(),
        node.getUnallocatedResource(), minimumAllocation)) {
      assignContainers(node);
    }
    updateAvailableResourcesMetrics();
  }

  /** One heartbeat: the core's grants, then FIFO for what the core cannot serve. */
  private void assignContainers(SpindleNode node) {
    long freeMemory = node.getUnallocatedResource().getMemorySize();
    sink.node = node;
    // Vcores unbounded: the DefaultResourceCalculator sizes by memory only.
    boolean served = bridge.heartbeat(node.getNodeName(), freeMemory,
        Integer.MAX_VALUE, System.currentTimeMillis(), coreSink);
    if (!served) {
      if (settings.fallback == SpindleSettings.Fallback.FIFO) {
        fifo(node, false);
      }
    } else if (bridge.hasFifoApps()) {
      fifo(node, true);
    }
    sink.node = null;
  }

  /** FifoScheduler's pass on this node, over every app or only those the core lost. */
  private void fifo(SpindleNode node, boolean onlyLostApps) {
    List<FifoFallback.App> apps = new ArrayList<>();
    for (Map.Entry<ApplicationId, SchedulerApplication<SpindleAppAttempt>> e
        : applications.entrySet()) {
      SpindleAppAttempt attempt = e.getValue().getCurrentAppAttempt();
      if (attempt == null || attempt.isStopped() || blacklisted(attempt, node)) {
        continue;
      }
      ApplicationAttemptId id = attempt.getApplicationAttemptId();
      if (onlyLostApps && !bridge.isFifoApp(id)) {
        continue;
      }
      synchronized (heldAms) {
        if (heldAms.containsKey(id)) {
          continue; // its AM waits for room, with the core as without it
        }
      }
      FifoFallback.App app = new FifoFallback.App(id);
      synchronized (attempt) {
        for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
          PendingAsk any = attempt.getPendingAsk(key, ResourceRequest.ANY);
          app.keys.add(new FifoFallback.Key(key.getPriority().getPriority(),
              any.getPerAllocationResource().getMemorySize(),
              attempt.getPendingAsk(key, node.getNodeName()).getCount(),
              attempt.getPendingAsk(key, node.getRackName()).getCount(), any.getCount()));
        }
      }
      apps.add(app);
    }
    FifoFallback.assign(node.getUnallocatedResource().getMemorySize(),
        minimumAllocation.getMemorySize(), apps, sink);
  }

  private static boolean blacklisted(SpindleAppAttempt a, SpindleNode node) {
    return a.isPlaceBlacklisted(node.getNodeName()) || a.isPlaceBlacklisted(node.getRackName());
  }

  /**
   * The core's grants: performed like any other, then the containers that
   * could not be placed (the AM lowered its asks since the core decided) are
   * handed back to the core as finished at once, and the placed ones are
   * remembered so that their completion is reported.
   */
  private final class CoreSink implements GrantSink {
    @Override
    public int grant(Object app, int priority, int count, int locality) {
      sink.fromCore = true;
      int done;
      try {
        done = sink.grant(app, priority, count, locality);
      } finally {
        sink.fromCore = false;
      }
      for (int i = done; i < count; i++) {
        bridge.containerFinished(sink.node.getNodeName(), app);
      }
      if (done < count) {
        // The core booked these as granted, lowering only this node's host,
        // its rack and ANY (as AppSchedulingInfo does): give it back the RM's
        // counts of those three names, not the app's whole ask set.
        SpindleAppAttempt attempt = getApplicationAttempt((ApplicationAttemptId) app);
        if (attempt != null && attempt.getApplicationAttemptId().equals(app)) {
          resyncPlaces(attempt, priority, sink.node.getNodeName(), sink.node.getRackName());
        }
      }
      return done;
    }
  }

  /** Performs grants on the heartbeating node with the public allocation recipe (section 1.4). */
  private final class NodeSink implements GrantSink {
    SpindleNode node;
    /** Whether the grant being performed is the core's (see {@link #coreContainers}). */
    boolean fromCore;

    @Override
    public int grant(Object app, int priority, int count, int locality) {
      ApplicationAttemptId attemptId = (ApplicationAttemptId) app;
      SpindleAppAttempt attempt = getApplicationAttempt(attemptId);
      if (attempt == null || count <= 0 || !attempt.getApplicationAttemptId().equals(attemptId)) {
        return 0;
      }
      NodeType type = locality == SpindleCore.NODE_LOCAL ? NodeType.NODE_LOCAL
          : locality == SpindleCore.RACK_LOCAL ? NodeType.RACK_LOCAL : NodeType.OFF_SWITCH;
      int done = 0;
      synchronized (attempt) {
        if (attempt.isStopped() || blacklisted(attempt, node)) {
          return 0;
        }
        SchedulerRequestKey key = null;
        AppPlacementAllocator<SpindleNode> placement = null;
        for (SchedulerRequestKey k : attempt.getSchedulerKeys()) {
          if (k.getPriority().getPriority() != priority) {
            continue;
          }
          AppPlacementAllocator<SpindleNode> p =
              attempt.getAppSchedulingInfo().getAppPlacementAllocator(k);
          // The first key at this priority that can still place here (its ANY count and,
          // for this locality, its host or rack count): one look, the allocation's own check.
          if (p != null && p.canAllocate(type, node)) {
            key = k;
            placement = p;
            break;
          }
        }
        if (key == null) {
          return 0;
        }
        Resource capability =
            placement.getPendingAsk(ResourceRequest.ANY).getPerAllocationResource();
        NodeId nodeId = node.getRMNode().getNodeID();
        // Memory only, as FifoScheduler (DefaultResourceCalculator) sizes containers.
        // The first pass's canAllocate was the key's look above. Under the attempt's
        // monitor the AM cannot change the asks (allocate() takes it too), so the
        // placement stays this key's; after the last container its ANY count is 0.
        boolean checked = true;
        while (done < count && capability.getMemorySize()
            <= node.getUnallocatedResource().getMemorySize()) {
          if (!checked && !placement.canAllocate(type, node)) {
            break; // this key's asks are served
          }
          checked = false;
          ContainerId id = BuilderUtils.newContainerId(attempt.getApplicationAttemptId(),
              attempt.getNewContainerId());
          Container container = BuilderUtils.newContainer(id, nodeId,
              node.getRMNode().getHttpAddress(), capability, key.getPriority(), null,
              key.getAllocationRequestId());
          RMContainer rc = attempt.allocate(type, node, key, container);
          if (rc == null) {
            break;
          }
          node.allocateContainer(rc);
          Resources.addTo(usedResource, rc.getAllocatedResource());
          if (fromCore) {
            coreContainers.add(id);
          }
          done++;
        }
      }
      return done;
    }
  }

  private void updateAppHeadRoom(SchedulerApplicationAttempt attempt) {
    attempt.setHeadroom(Resources.subtract(getClusterResource(), usedResource));
  }

  /**
   * The queue's available resources, set only when they changed: a
   * heartbeat that allocates nothing makes no Resource and no metrics call.
   */
  private void updateAvailableResourcesMetrics() {
    Resource cluster = getClusterResource();
    long mb = cluster.getMemorySize() - usedResource.getMemorySize();
    int vcores = cluster.getVirtualCores() - usedResource.getVirtualCores();
    if (mb == available.getMemorySize() && vcores == available.getVirtualCores()
        && availableSet) {
      return;
    }
    available.setMemorySize(mb);
    available.setVirtualCores(vcores);
    availableSet = true;
    // QueueMetrics copies the values out; the object is reused.
    metrics.setAvailableResourcesToQueue(available);
  }

  @Override
  public void handle(SchedulerEvent event) {
    switch (event.getType()) {
      case NODE_ADDED: {
        NodeAddedSchedulerEvent e = (NodeAddedSchedulerEvent) event;
        addNode(e.getAddedRMNode());
        recoverContainersOnNode(e.getContainerReports(), e.getAddedRMNode());
        break;
      }
      case NODE_REMOVED:
        removeNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode());
        break;
      case NODE_RESOURCE_UPDATE: {
        NodeResourceUpdateSchedulerEvent e = (NodeResourceUpdateSchedulerEvent) event;
        nodeResourceUpdated(e.getRMNode(), e.getResourceOption());
        break;
      }
      case NODE_UPDATE:
        nodeUpdate(((NodeUpdateSchedulerEvent) event).getRMNode());
        break;
      case APP_ADDED: {
        AppAddedSchedulerEvent e = (AppAddedSchedulerEvent) event;
        addApplication(e.getApplicationId(), e.getUser(), e.getIsAppRecovering(),
            HadoopCompat.isUnmanagedAM(e), e.getApplicatonPriority());
        break;
      }
      case APP_REMOVED: {
        AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
        doneApplication(e.getApplicationID(), e.getFinalState());
        break;
      }
      case APP_ATTEMPT_ADDED: {
        AppAttemptAddedSchedulerEvent e = (AppAttemptAddedSchedulerEvent) event;
        addApplicationAttempt(e.getApplicationAttemptId(),
            e.getTransferStateFromPreviousAttempt(), e.getIsAttemptRecovering());
        break;
      }
      case APP_ATTEMPT_REMOVED: {
        AppAttemptRemovedSchedulerEvent e = (AppAttemptRemovedSchedulerEvent) event;
        doneApplicationAttempt(e.getApplicationAttemptID(), e.getFinalAttemptState(),
            e.getKeepContainersAcrossAppAttempts());
        break;
      }
      case CONTAINER_EXPIRED: {
        ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
        completedContainer(getRMContainer(id),
            SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
            RMContainerEventType.EXPIRE);
        break;
      }
      case RELEASE_CONTAINER: {
        RMContainer c = ((ReleaseContainerEvent) event).getContainer();
        completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(c.getContainerId(),
            SchedulerUtils.RELEASED_CONTAINER), RMContainerEventType.RELEASED);
        break;
      }
      default:
        LOG.error("Unexpected scheduler event " + event.getType() + "; ignored");
    }
  }

  private synchronized void addNode(RMNode rmNode) {
    SpindleNode node = new SpindleNode(rmNode, usePortForNodeName);
    nodeTracker.addNode(node);
    rackNodes.merge(node.getRackName(), 1, Integer::sum);
    Resource total = rmNode.getTotalCapability();
    bridge.nodeAdded(node.getNodeName(), node.getRackName(), total.getMemorySize(),
        total.getVirtualCores());
    updateAvailableResourcesMetrics();
  }

  private synchronized void removeNode(RMNode rmNode) {
    SpindleNode node = nodeTracker.getNode(rmNode.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
          c.getContainerId(), SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
    }
    nodeTracker.removeNode(rmNode.getNodeID());
    rackNodes.computeIfPresent(node.getRackName(), (r, n) -> n > 1 ? n - 1 : null);
    bridge.nodeRemoved(node.getNodeName());
    updateAvailableResourcesMetrics();
  }

  /** A node's total resource changed (admin update, NM re-registration): the core re-plans. */
  private synchronized void nodeResourceUpdated(RMNode rmNode, ResourceOption option) {
    updateNodeResource(rmNode, option);
    SpindleNode node = nodeTracker.getNode(rmNode.getNodeID());
    if (node != null) {
      Resource total = node.getTotalResource();
      bridge.nodeResourceUpdated(node.getNodeName(), total.getMemorySize(),
          total.getVirtualCores());
    }
    updateAvailableResourcesMetrics();
  }

  @Override
  protected synchronized void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus status, RMContainerEventType event) {
    Container container = rmContainer.getContainer();
    SpindleAppAttempt attempt = getCurrentAttemptForContainer(container.getId());
    SpindleNode node = (SpindleNode) getNode(container.getNodeId());
    if (coreContainers.remove(container.getId()) && node != null) {
      bridge.containerFinished(node.getNodeName(), container.getId().getApplicationAttemptId());
    }
    if (attempt == null) {
      LOG.info("Unknown application released container " + container.getId() + " on node "
          + node + " with event " + event);
      return;
    }
    // "" = the default partition. False when the container had already
    // completed: an AM release racing the NM's report of the same container.
    if (!attempt.containerCompleted(rmContainer, status, event, "")) {
      return;
    }
    if (node != null) {
      node.releaseContainer(rmContainer.getContainerId(), false);
    }
    Resources.subtractFrom(usedResource, container.getResource());
    if (!inNodeUpdate) {
      updateAvailableResourcesMetrics();
    }
  }

  /**
   * Completes a container; when it was still ALLOCATED (its AM had not
   * pulled it), the RM puts its request back in the attempt's asks
   * (recoverResourceRequestForContainer), and the core must ask for it again.
   */
  @Override
  public void completedContainer(RMContainer rmContainer, ContainerStatus status,
      RMContainerEventType event) {
    boolean recovers = rmContainer != null && rmContainer.getContainerRequest() != null;
    super.completedContainer(rmContainer, status, event);
    if (recovers) {
      SpindleAppAttempt attempt = getCurrentAttemptForContainer(rmContainer.getContainerId());
      SpindleNode node = (SpindleNode) getNode(rmContainer.getAllocatedNode());
      if (attempt != null) {
        int priority = rmContainer.getAllocatedSchedulerKey().getPriority().getPriority();
        if (node != null) {
          // The recovered requests are those the allocation lowered: the
          // node's host, its rack and ANY.
          resyncPlaces(attempt, priority, node.getNodeName(), node.getRackName());
        } else {
          resyncAsks(attempt, priority);
        }
      }
    }
  }

  /**
   * Sends the core the RM's outstanding asks of {@code attempt} at
   * {@code priority} (AppSchedulingInfo's counts, summed over the scheduler
   * keys of that priority; blacklisted hosts and racks as 0). The core
   * lowers its counts when it grants; this puts them back in step after a
   * grant the RM refused, a request the RM recovered, or a blacklist change.
   * The MapReduce AM re-sends only asks that changed, so without it a job's
   * last retry or its only reducer could wait for ever.
   */
  private void resyncAsks(SpindleAppAttempt attempt, int priority) {
    // Under the attempt's monitor, as allocate() forwards new asks: the core
    // never gets an older count after a newer one (lock order: app, then bridge).
    synchronized (attempt) {
      if (attempt.isStopped()) {
        return;
      }
      List<CoreBridge.Ask> asks = new ArrayList<>();
      for (Map<String, ResourceRequest> requests : requestsAt(attempt, priority)) {
        for (ResourceRequest r : requests.values()) {
          String name = r.getResourceName();
          boolean blocked = !ResourceRequest.ANY.equals(name) && attempt.isPlaceBlacklisted(name);
          Resource c = r.getCapability();
          asks.add(new CoreBridge.Ask(priority, name, blocked ? 0 : r.getNumContainers(),
              c.getMemorySize(), c.getVirtualCores(), r.getRelaxLocality()));
        }
      }
      bridge.resync(attempt.getApplicationAttemptId(), priority, asks);
    }
  }

  /**
   * {@link #resyncAsks} for only {@code host}, {@code rack} and ANY: the
   * names one allocation on a node lowers in AppSchedulingInfo and in the
   * core, so the only counts a refused or recovered grant can leave out of
   * step. Map lookups, not a walk over the app's asks.
   */
  private void resyncPlaces(SpindleAppAttempt attempt, int priority, String host, String rack) {
    synchronized (attempt) {
      if (attempt.isStopped()) {
        return;
      }
      String[] names = {host, rack, ResourceRequest.ANY};
      int[] counts = new int[names.length];
      ResourceRequest[] shapes = new ResourceRequest[names.length];
      for (Map<String, ResourceRequest> requests : requestsAt(attempt, priority)) {
        for (int i = 0; i < names.length; i++) {
          ResourceRequest r = requests.get(names[i]);
          if (r == null) {
            continue;
          }
          boolean blocked = i < 2 && attempt.isPlaceBlacklisted(names[i]);
          counts[i] += blocked ? 0 : r.getNumContainers();
          if (shapes[i] == null) {
            shapes[i] = r;
          }
        }
      }
      ResourceRequest any = shapes[2];
      List<CoreBridge.Ask> asks = new ArrayList<>(names.length);
      for (int i = 0; i < names.length; i++) {
        ResourceRequest shape = shapes[i] != null ? shapes[i] : any;
        Resource c = shape == null ? null : shape.getCapability();
        asks.add(new CoreBridge.Ask(priority, names[i], counts[i],
            c == null ? 0 : c.getMemorySize(), c == null ? 0 : c.getVirtualCores(),
            shape == null || shape.getRelaxLocality()));
      }
      bridge.asks(attempt.getApplicationAttemptId(), asks);
    }
  }

  /** The RM's requests by resource name of each of the attempt's scheduler keys at {@code priority}. */
  private static List<Map<String, ResourceRequest>> requestsAt(SpindleAppAttempt attempt,
      int priority) {
    List<Map<String, ResourceRequest>> out = new ArrayList<>(1);
    for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
      if (key.getPriority().getPriority() != priority) {
        continue;
      }
      AppPlacementAllocator<SpindleNode> placement =
          attempt.getAppSchedulingInfo().getAppPlacementAllocator(key);
      if (placement != null) {
        out.add(placement.getResourceRequests());
      }
    }
    return out;
  }

  /** {@link #resyncAsks} for every priority the attempt asks at. */
  private void resyncAllAsks(SpindleAppAttempt attempt) {
    Set<Integer> priorities = new HashSet<>();
    for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
      priorities.add(key.getPriority().getPriority());
    }
    for (int p : priorities) {
      resyncAsks(attempt, p);
    }
  }

  @Override
  public void killContainer(RMContainer container) {
    ContainerStatus status = SchedulerUtils.createKilledContainerStatus(
        container.getContainerId(), "Killed by RM to simulate an AM container failure");
    completedContainer(container, status, RMContainerEventType.KILL);
  }

  @Override
  public QueueInfo getQueueInfo(String queueName, boolean includeChildQueues, boolean recursive) {
    return queue.getQueueInfo(false, false);
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo() {
    return queue.getQueueUserAclInfo(null);
  }

  @Override
  public ResourceCalculator getResourceCalculator() {
    return calculator;
  }

  @Override
  public void recover(RMState state) {
    // Like FifoScheduler: nothing to restore beyond what the RM replays as events.
  }

  /** {@code applications} by hash: see {@link #appIndex}. */
  @Override
  public SpindleAppAttempt getApplicationAttempt(ApplicationAttemptId id) {
    SchedulerApplication<SpindleAppAttempt> app = appIndex.get(id.getApplicationId());
    return app == null ? null : app.getCurrentAppAttempt();
  }

  @Override
  public SpindleAppAttempt getCurrentAttemptForContainer(ContainerId containerId) {
    return getApplicationAttempt(containerId.getApplicationAttemptId());
  }

  @Override
  public RMContainer getRMContainer(ContainerId containerId) {
    SpindleAppAttempt attempt = getCurrentAttemptForContainer(containerId);
    return attempt == null ? null : attempt.getRMContainer(containerId);
  }

  @Override
  public QueueMetrics getRootQueueMetrics() {
    return metrics;
  }

  @Override
  public boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl, String queueName) {
    return queue.hasAccess(acl, callerUGI);
  }

  @Override
  public synchronized List<ApplicationAttemptId> getAppsInQueue(String queueName) {
    if (!QUEUE_NAME.equals(queueName)) {
      return null;
    }
    List<ApplicationAttemptId> attempts = new ArrayList<>(applications.size());
    for (SchedulerApplication<SpindleAppAttempt> app : applications.values()) {
      if (app.getCurrentAppAttempt() != null) {
        attempts.add(app.getCurrentAppAttempt().getApplicationAttemptId());
      }
    }
    return attempts;
  }
}
