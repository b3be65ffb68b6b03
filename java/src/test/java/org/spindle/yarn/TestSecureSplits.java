package org.spindle.yarn;

import org.spindle.core.ForwardingCore;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSNNTopology;
import org.apache.hadoop.hdfs.server.namenode.ha.HATestUtil;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.split.JobSplitWriter;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.URL;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.slf4j.LoggerFactory;
import org.spindle.core.Core;

/**
 * SplitFiles on a kerberized HDFS: a MiniKdc, and a MiniDFSCluster with
 * Kerberos, block access tokens and SASL data transfer, as an HA pair whose
 * first NameNode is the standby. Jobs' split files are written by
 * MapReduce's own JobSplitWriter, one split per block, in each
 * user's 700 staging directory; the RM side gets only what an RM gets: the
 * user name and the submission context (local resources and the job's
 * delegation tokens). This JVM's login user is the HDFS superuser (the
 * NameNodes log in as it), so a read done with the JVM's own identity would
 * read anything: the permission test shows the reads do not.
 *
 * <p>Runs in its own JVM (the pom's "kerberized" Surefire execution): Kerberos
 * and the login user are JVM-wide in Hadoop.
 */
public class TestSecureSplits {
  private static final String NS = "ns1";
  private static final String[] DATANODES = {"dn1", "dn2", "dn3"};
  private static final long RENEW_MS = 10_000;
  private static File dir;
  private static MiniKdc kdc;
  private static MiniDFSCluster cluster;
  private static Configuration conf;
  private static UserGroupInformation alice;
  private static UserGroupInformation bob;
  /** alice's job: its split file, and the hosts of each of its splits. */
  private static Path aliceJob;
  private static List<String> aliceHosts;
  private static int nextApp;

  @BeforeClass
  public static void startKerberizedHdfs() throws Exception {
    dir = Files.createTempDirectory(new File("target").toPath().toAbsolutePath(), "secure")
        .toFile();
    kdc = new MiniKdc(MiniKdc.createConf(), dir);
    kdc.start();
    String realm = kdc.getRealm();
    File hdfsKeytab = new File(dir, "hdfs.keytab");
    kdc.createPrincipal(hdfsKeytab, "hdfs/localhost", "HTTP/localhost");
    File userKeytab = new File(dir, "users.keytab");
    kdc.createPrincipal(userKeytab, "alice", "bob");

    conf = new HdfsConfiguration();
    SecurityUtil.setAuthenticationMethod(
        UserGroupInformation.AuthenticationMethod.KERBEROS, conf);
    conf.setBoolean("hadoop.security.authorization", true);
    conf.set("dfs.namenode.kerberos.principal", "hdfs/localhost@" + realm);
    conf.set("dfs.namenode.keytab.file", hdfsKeytab.getPath());
    conf.set("dfs.datanode.kerberos.principal", "hdfs/localhost@" + realm);
    conf.set("dfs.datanode.keytab.file", hdfsKeytab.getPath());
    conf.set("dfs.web.authentication.kerberos.principal", "HTTP/localhost@" + realm);
    conf.set("dfs.web.authentication.kerberos.keytab", hdfsKeytab.getPath());
    conf.setBoolean("dfs.block.access.token.enable", true);
    conf.set("dfs.data.transfer.protection", "authentication");
    // SASL data transfer without HTTPS or privileged ports: Hadoop's switch for tests.
    conf.setBoolean("ignore.secure.ports.for.testing", true);
    conf.setBoolean("dfs.ha.standby.checkpoints", false);
    conf.setLong("dfs.blocksize", 1024 * 1024);
    // Delegation tokens expire RENEW_MS after they are issued unless renewed (the RM renews
    // real jobs' tokens; nobody does here): the expired-token test waits that long.
    conf.setLong("dfs.namenode.delegation.token.renew-interval", RENEW_MS);
    conf.setInt("dfs.replication", 2);
    // A refused token: fail over once to the other NameNode, not 15 times.
    conf.setInt("dfs.client.failover.max.attempts", 2);
    conf.setInt("dfs.client.failover.sleep.base.millis", 50);
    UserGroupInformation.setConfiguration(conf);

    cluster = new MiniDFSCluster.Builder(conf, new File(dir, "dfs"))
        .nnTopology(MiniDFSNNTopology.simpleHATopology()).numDataNodes(3)
        .hosts(DATANODES).checkDataNodeHostConfig(true).build();
    cluster.waitActive();
    // The second NameNode is the active one: clients meet the standby first.
    cluster.transitionToActive(1);
    HATestUtil.setFailoverConfigurations(cluster, conf, NS);
    // ViewFS: /jobs in the mount table is the HA nameservice's /user.
    conf.set("fs.viewfs.mounttable.cluster.link./jobs", "hdfs://" + NS + "/user");

    // As the superuser: a 700 home per user.
    FileSystem root = FileSystem.get(URI.create("hdfs://" + NS), conf);
    for (String u : new String[] {"alice", "bob"}) {
      Path home = new Path("/user/" + u);
      root.mkdirs(home);
      root.setOwner(home, u, u);
      root.setPermission(home, new FsPermission((short) 0700));
    }
    alice = UserGroupInformation.loginUserFromKeytabAndReturnUGI(
        "alice@" + realm, userKeytab.getPath());
    bob = UserGroupInformation.loginUserFromKeytabAndReturnUGI(
        "bob@" + realm, userKeytab.getPath());
    aliceHosts = new ArrayList<>();
    aliceJob = alice.doAs((PrivilegedExceptionAction<Path>) () -> submitJob("alice", aliceHosts,
        false));
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.shutdown();
    }
    if (kdc != null) {
      kdc.stop();
    }
    FileUtil.fullyDelete(dir);
  }

  /**
   * Writes a 3-block input file and the job's split files as the MapReduce
   * client does (one FileSplit per block, JobSplitWriter) into the user's
   * staging directory; {@code hosts} gets each split's hosts. {@code bare}:
   * splits without locations (as NLineInputFormat writes), so the reader
   * looks them up from job.split.
   */
  private static Path submitJob(String user, List<String> hosts, boolean bare) throws Exception {
    FileSystem fs = FileSystem.get(URI.create("hdfs://" + NS), conf);
    Path input = new Path("/user/" + user + "/in-" + (bare ? "bare" : "located"));
    try (FSDataOutputStream out = fs.create(input)) {
      byte[] line = "a line of input text, forty bytes long.\n".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < 3 * 1024 * 1024 / line.length; i++) {
        out.write(line);
      }
    }
    // One split per block with the block's hosts, as FileInputFormat makes them (its
    // getSplits would ask the RM for tokens on a secure cluster: no RM here).
    BlockLocation[] blocks = fs.getFileBlockLocations(fs.getFileStatus(input), 0, Long.MAX_VALUE);
    List<InputSplit> splits = new ArrayList<>();
    for (BlockLocation b : blocks) {
      hosts.add(sorted(String.join(",", b.getHosts())));
      splits.add(new FileSplit(fs.makeQualified(input), b.getOffset(), b.getLength(),
          bare ? new String[0] : b.getHosts()));
    }
    Path staging = new Path("/user/" + user + "/.staging/job_" + (bare ? "bare" : "located"));
    fs.mkdirs(staging, new FsPermission((short) 0700));
    JobSplitWriter.createSplitFiles(staging, conf, fs, splits);
    return new Path("hdfs://" + NS + staging);
  }

  /** Comma-separated hosts in name order (the NameNode orders each block's replicas anew). */
  private static String sorted(String hosts) {
    String[] h = hosts.split(",");
    java.util.Arrays.sort(h);
    return String.join(",", h);
  }

  /** The user's HDFS delegation token(s), as the MapReduce client gets them for its job. */
  private static Credentials tokens(UserGroupInformation ugi) throws Exception {
    return ugi.doAs((PrivilegedExceptionAction<Credentials>) () -> {
      Credentials c = new Credentials();
      FileSystem.get(URI.create("hdfs://" + NS), conf).addDelegationTokens("rm", c);
      return c;
    });
  }

  /** A submission context as YARNRunner builds it: the split files and the job's tokens. */
  private static ApplicationSubmissionContext context(ApplicationId id, Path jobDir,
      Credentials creds) throws Exception {
    Map<String, LocalResource> res = new HashMap<>();
    for (String name : new String[] {"job.splitmetainfo", "job.split"}) {
      res.put("jobSubmitDir/" + name, LocalResource.newInstance(
          URL.fromURI(new Path(jobDir, name).toUri()), LocalResourceType.FILE,
          LocalResourceVisibility.APPLICATION, 100, 1));
    }
    ByteBuffer tokens = null;
    if (creds != null) {
      DataOutputBuffer b = new DataOutputBuffer();
      creds.writeTokenStorageToStream(b);
      tokens = ByteBuffer.wrap(b.getData(), 0, b.getLength());
    }
    ContainerLaunchContext am = ContainerLaunchContext.newInstance(res,
        Collections.<String, String>emptyMap(), Collections.<String>emptyList(), null, tokens,
        null);
    return ApplicationSubmissionContext.newInstance(id, "job", "default", Priority.newInstance(0),
        am, false, false, 2, Resource.newInstance(1024, 1), "MAPREDUCE");
  }

  /** A real core that records the exact inputs it is given, per app. */
  static final class Recorder extends ForwardingCore {
    final Map<Integer, String> inputs = Collections.synchronizedMap(new HashMap<>());

    Recorder(Core inner) {
      super(inner);
    }

    @Override
    public void inputBlocks(int app, int priority, String[] tasks) {
      inputs.put(app, String.join(" | ", tasks));
      super.inputBlocks(app, priority, tasks);
    }
  }

  /** One RM-side reader over a real core that knows the DataNodes; closed by the caller. */
  private static final class Rm implements AutoCloseable {
    final Recorder core;
    final CoreBridge bridge;
    final SplitFiles splits;
    final LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(SplitFiles.class));

    Rm() {
      Map<String, String> m = new HashMap<>();
      m.put(SpindleSettings.LIBRARY_PATH, System.getProperty("spindle.library.path", ""));
      SpindleSettings s = SpindleSettings.read(m::get);
      core = new Recorder(CoreSetup.open(s));
      bridge = new CoreBridge(core);
      for (String h : DATANODES) {
        bridge.nodeAdded(h, "/default-rack", 8192, 8);
      }
      splits = new SplitFiles(conf, s, bridge);
    }

    /** Submits an app of {@code user} reading {@code jobDir} with {@code creds}; waits for it. */
    ApplicationAttemptId submit(String user, Path jobDir, Credentials creds) throws Exception {
      ApplicationId id = ApplicationId.newInstance(1, ++nextApp);
      ApplicationAttemptId attempt = ApplicationAttemptId.newInstance(id, 1);
      bridge.appAdded(attempt, 1.0, System.currentTimeMillis());
      long before = splits.exactInputs() + splits.failures();
      splits.request(attempt, context(id, jobDir, creds), user);
      for (int i = 0; i < 600 && splits.exactInputs() + splits.failures() == before; i++) {
        Thread.sleep(50);
      }
      assertEquals("the read ended", before + 1, splits.exactInputs() + splits.failures());
      return attempt;
    }

    /** The exact input the core got for {@code a}, each split's hosts sorted; null if none. */
    String inputsOf(ApplicationAttemptId a) {
      String in = core.inputs.get(bridge.appId(a));
      if (in == null) {
        return null;
      }
      List<String> out = new ArrayList<>();
      for (String split : in.split(" \\| ", -1)) {
        out.add(sorted(split));
      }
      return String.join(" | ", out);
    }

    @Override
    public void close() {
      log.stopCapturing();
      splits.close();
      bridge.close();
    }
  }

  /**
   * alice's job, read with alice's token through the HA nameservice (the
   * standby first, then the active): the split hosts reach the core; the same through a ViewFS mount of it; and location-less splits
   * get their hosts from job.split and the input file's blocks.
   */
  @Test
  public void theJobsTokenReadsItsSplitsThroughTheActiveNameNode() throws Exception {
    Credentials creds = tokens(alice);
    try (Rm rm = new Rm()) {
      ApplicationAttemptId a = rm.submit("alice", aliceJob, creds);
      assertEquals(rm.log.getOutput(), 1, rm.splits.exactInputs());
      assertEquals("exact input of the job's 3 splits", String.join(" | ", aliceHosts),
          rm.inputsOf(a));
      assertTrue(rm.log.getOutput(), rm.log.getOutput().contains(
          a + ": exact input of 3 splits from " + aliceJob + "/job.splitmetainfo (read as alice)"));

      ApplicationAttemptId v = rm.submit("alice",
          new Path("viewfs://cluster/jobs/alice/.staging/job_located"), creds);
      assertEquals("through ViewFS: " + rm.log.getOutput(), 2, rm.splits.exactInputs());
      assertEquals(String.join(" | ", aliceHosts), rm.inputsOf(v));

      List<String> bareHosts = new ArrayList<>();
      Path bare = alice.doAs((PrivilegedExceptionAction<Path>) () ->
          submitJob("alice", bareHosts, true));
      ApplicationAttemptId l = rm.submit("alice", bare, creds);
      assertEquals(rm.log.getOutput(), 3, rm.splits.exactInputs());
      assertEquals("location-less splits located from job.split", String.join(" | ", bareHosts),
          rm.inputsOf(l));
      assertTrue(rm.log.getOutput(),
          rm.log.getOutput().contains("3 location-less splits located from their input files"));
      assertEquals(0, rm.splits.failures());
    }
  }

  /**
   * bob's app naming alice's split file, with bob's own token: refused by
   * the NameNode (alice's home is 700), logged once with the cause; the core
   * gets nothing for bob's app. The RM's JVM runs as the HDFS superuser
   * here, so this also shows the read is not done as the RM.
   */
  @Test
  public void anotherUsersTokenCannotReadTheJobsStagingDirectory() throws Exception {
    try (Rm rm = new Rm()) {
      ApplicationAttemptId b = rm.submit("bob", aliceJob, tokens(bob));
      assertEquals(1, rm.splits.failures());
      assertEquals(0, rm.splits.exactInputs());
      assertEquals("nothing of alice's job reaches bob's app", null, rm.inputsOf(b));
      assertTrue("core has no exact input at all: " + rm.core.inputs, rm.core.inputs.isEmpty());
      String out = rm.log.getOutput();
      assertTrue(out, out.contains(b + ": cannot read its split file " + aliceJob
          + "/job.splitmetainfo as bob: permission denied"));
      assertTrue(out, out.contains("user=bob"));
      assertTrue("one line, not the NameNode's stack trace: " + out, !out.contains("\tat "));
      assertTrue(out, out.contains("; planned from its asks"));

      // bob claiming to be alice, with bob's token: the token says bob, the NameNode refuses.
      ApplicationAttemptId c = rm.submit("alice", aliceJob, tokens(bob));
      assertEquals(2, rm.splits.failures());
      assertEquals(null, rm.inputsOf(c));
    }
  }

  /** A token past its renewal date: "expired token" in the log, no exact input. */
  @Test
  public void anExpiredTokenGivesALogLineAndTheAsksOnlyPlan() throws Exception {
    Credentials creds = tokens(alice);
    Thread.sleep(RENEW_MS + 500);
    try (Rm rm = new Rm()) {
      ApplicationAttemptId a = rm.submit("alice", aliceJob, creds);
      assertEquals(1, rm.splits.failures());
      assertEquals(null, rm.inputsOf(a));
      String out = rm.log.getOutput();
      assertTrue(out, out.contains(a + ": cannot read its split file " + aliceJob
          + "/job.splitmetainfo as alice: expired token"));
    }
  }

  /**
   * A token cancelled before the read (as the RM cancels a finished job's
   * tokens), and a secure app with no token at all: a clear line each, no
   * exact input, the app planned from its asks.
   */
  @Test
  public void aCancelledOrMissingTokenGivesALogLineAndTheAsksOnlyPlan() throws Exception {
    Credentials creds = tokens(alice);
    alice.doAs((PrivilegedExceptionAction<Void>) () -> {
      for (Token<?> t : creds.getAllTokens()) {
        t.cancel(conf);
      }
      return null;
    });
    try (Rm rm = new Rm()) {
      ApplicationAttemptId a = rm.submit("alice", aliceJob, creds);
      ApplicationAttemptId n = rm.submit("alice", aliceJob, null);
      assertEquals(2, rm.splits.failures());
      assertEquals(0, rm.splits.exactInputs());
      assertTrue("no exact input: " + rm.core.inputs, rm.core.inputs.isEmpty());
      String out = rm.log.getOutput();
      assertTrue(out, out.contains(a + ": cannot read its split file " + aliceJob
          + "/job.splitmetainfo as alice: cancelled or unknown token"));
      assertTrue(out, out.contains(n + ": cannot read its split file " + aliceJob
          + "/job.splitmetainfo as alice: no delegation token in the submission context"));
    }
  }
}
