package org.spindle.bench.sls;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.net.URISyntaxException;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.sls.TaskContainerDefinition;
import org.apache.hadoop.yarn.sls.synthetic.SynthJob;
import org.apache.hadoop.yarn.sls.synthetic.SynthTraceJobProducer;
import org.junit.Test;

public class SlsTraceTest {
  /** SchedulerLoadSimulator.md's example job (hadoop-sls's inputsls.json shape), and a node object. */
  static final String DOC_JOB = "{\"num.nodes\": 3, \"num.racks\": 1}\n"
      + "{\n  \"am.type\" : \"mapreduce\",\n  \"job.start.ms\" : 0,\n  \"job.end.ms\" : 95375,\n"
      + "  \"job.queue.name\" : \"sls_queue_1\",\n  \"job.id\" : \"job_1\",\n  \"job.user\" : \"default\",\n"
      + "  \"job.tasks\" : [ {\n    \"container.host\" : \"/default-rack/node1\",\n"
      + "    \"container.start.ms\" : 6664,\n    \"container.end.ms\" : 23707,\n"
      + "    \"container.priority\" : 20,\n    \"container.type\" : \"map\"\n  }, {\n"
      + "    \"container.host\" : \"/default-rack/node3\",\n    \"container.duration.ms\" : 5000,\n"
      + "    \"container.type\" : \"reduce\"\n  } ]\n}\n";

  private static Path file(String text) throws IOException {
    Path p = Files.createTempFile("sls-trace", ".json");
    p.toFile().deleteOnExit();
    Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    return p;
  }

  /**
   * The shipped SYNTH workload through SLS's own generator, as AMRunner uses it:
   * a job's id is mapreduce's JobID, which hadoop-sls does not bring (every
   * SYNTH run died in SLSRunner.start until the bench depended on it).
   */
  @Test
  public void theShippedSynthWorkloadGeneratesJobsWithIds() throws Exception {
    Path workload = Paths.get("sls", "synth-mr.json").toAbsolutePath();
    SynthTraceJobProducer producer = new SynthTraceJobProducer(new Configuration(false),
        new org.apache.hadoop.fs.Path(workload.toUri()));
    assertEquals(100, producer.getNumJobs());
    SynthJob job = (SynthJob) producer.getNextJob();
    assertTrue(job.getJobID().toString(), job.getJobID().toString().startsWith("job_"));
    assertTrue("maps " + job.getNumberMaps(), job.getNumberMaps() > 0);
    assertTrue("submits within the workload's 60 s: " + job.getSubmissionTime(),
        job.getSubmissionTime() >= 0 && job.getSubmissionTime() <= 60_000);
  }

  @Test
  public void readsTheDocumentedFormatAsSlsMeansIt() throws IOException {
    List<Map<String, Object>> jobs = SlsTrace.read(file(DOC_JOB));
    assertEquals("the num.nodes object is not a job", 1, jobs.size());
    Map<String, Object> job = jobs.get(0);
    assertEquals("job_1", job.get("job.id"));
    assertEquals("0", job.get("job.start.ms"));
    List<?> tasks = (List<?>) job.get("job.tasks");
    assertEquals(2, tasks.size());
    Map<?, ?> t0 = (Map<?, ?>) tasks.get(0);
    assertEquals("/default-rack/node1", t0.get("container.host"));
    assertEquals("6664", t0.get("container.start.ms"));
    assertEquals("20", t0.get("container.priority"));
    assertEquals("5000", ((Map<?, ?>) tasks.get(1)).get("container.duration.ms"));
  }

  /** Why SlsTrace exists: hadoop-sls 3.4.2's AMRunner binding refuses the same job. */
  @Test
  public void slsOwnBindingRefusesJobsWithTasks() throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    JavaType type = mapper.getTypeFactory().constructMapType(Map.class, String.class, String.class);
    Iterator<Map<String, String>> it = mapper.readValues(
        new JsonFactory().createParser(DOC_JOB.substring(DOC_JOB.indexOf('\n') + 1)), type);
    try {
      it.next();
      fail("Jackson bound an array to a String");
    } catch (RuntimeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(
          "Cannot deserialize value of type `java.lang.String` from Array value"));
    }
  }

  private static void refused(String trace, String... parts) throws IOException {
    Path p = file(trace);
    try {
      SlsTrace.read(p);
      fail("accepted: " + trace);
    } catch (SlsTrace.TraceException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith(p.toString() + ": "));
      for (String part : parts) {
        assertTrue("\"" + part + "\" not in: " + e.getMessage(), e.getMessage().contains(part));
      }
    }
  }

  @Test
  public void badTracesAreRefusedNamingFileJobAndKey() throws IOException {
    refused("[{\"job.id\": \"a\"}]", "item 1 is an array, not a job object",
        "a stream of JSON objects");
    refused("{\"job.id\": \"j1\"}", "job 1 (job.id j1): job.tasks must be a non-empty array",
        "got none");
    refused("{\"job.id\": \"j1\", \"job.tasks\": []}\n", "job 1 (job.id j1): job.tasks");
    refused("{\"job.id\": \"a\", \"job.tasks\": [{\"container.host\": \"/r/h\"}]}\n"
        + "{\"job.id\": \"b\", \"job.tasks\": [7]}", "job 2 (job.id b): job.tasks[0] is the value 7",
        "not a task object");
    refused("{\"job.id\": \"c\", \"job.tasks\": [{\"container.host\": [\"/r/h\"]}]}",
        "job 1 (job.id c): job.tasks[0]: container.host must be a string or a number, got an array");
    refused("{\"job.id\": \"d\", \"job.user\": null, \"job.tasks\": [{}]}",
        "job 1 (job.id d): job.user must be a string or a number, got null");
    refused("{\"job.id\": \"e\", \"job.tasks\": [{}]}\n{\"job.id\": ", "not JSON at line 2");
  }

  @Test
  public void theGeneratedTraceReadsBackWithItsHosts() throws IOException {
    Path dir = Files.createTempDirectory("sls-gen");
    Path nodes = dir.resolve("nodes.json");
    Path trace = dir.resolve("trace.json");
    SlsBench.writeTrace(30, 3, 7, 5000, new Random(3), nodes, trace);
    List<Map<String, Object>> jobs = SlsTrace.read(trace);
    assertEquals(3, jobs.size());
    for (Map<String, Object> job : jobs) {
      assertEquals(7, ((List<?>) job.get("job.tasks")).size());
    }
    Set<String> fromNodes = SlsBench.hostNames("SLS", trace, nodes);
    assertEquals(30, fromNodes.size());
    assertTrue(fromNodes.contains("node29"));
    // Without a node file, the hosts the trace names (all of them nodes of the file).
    Set<String> fromTrace = SlsBench.hostNames("SLS", trace, null);
    assertTrue(fromNodes.containsAll(fromTrace));
    assertTrue(!fromTrace.isEmpty());
  }

  @Test
  public void aRumenTraceNeedsANodeFile() throws IOException {
    try {
      SlsBench.hostNames("RUMEN", file("{}"), null);
      fail("no node file accepted");
    } catch (IOException e) {
      assertEquals("a RUMEN trace needs --node-file (the nodes to simulate)", e.getMessage());
    }
  }

  @Test
  public void badArgumentsAreNamed() {
    String[][] cases = {
      {"--scheduler", "fifo"},
      {"--nodes", "0"},
      {"--trace-type", "SLS"},
      {"--trace-type", "csv", "--trace", "x"},
      {"--bogus", "1"},
      {"--nodes"},
    };
    String[] expected = {
      "--scheduler: one of [capacity, fair, spindle, capacity-spindle], got \"fifo\"",
      "--nodes: an integer in 1..100000, got \"0\"",
      "--trace-type and --trace go together",
      "--trace-type: SLS, RUMEN or SYNTH, got \"CSV\"",
      "unknown argument \"--bogus\"",
      "every argument takes a value: --nodes",
    };
    for (int i = 0; i < cases.length; i++) {
      try {
        SlsBench.Args.parse(cases[i]);
        fail("accepted " + String.join(" ", cases[i]));
      } catch (IllegalArgumentException e) {
        assertEquals(expected[i], e.getMessage());
      }
    }
  }

  @Test
  public void quantilesOfJobTimes() {
    double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertEquals(5, SlsBench.quantile(v, 0.5), 0);
    assertEquals(9, SlsBench.quantile(v, 0.9), 0);
    assertEquals(0, SlsBench.quantile(new double[0], 0.5), 0);
  }

  /**
   * A trace `spindle trace --to sls` wrote (3 SWIM jobs on 20 nodes, kept as
   * a test resource): read, and every task built by SLS's own
   * TaskContainerDefinition as AMDefinitionSLS builds it (it checks the
   * duration), on hosts of the node file written with it.
   */
  @Test
  public void spindleTracesAreWhatSlsReads() throws Exception {
    Path trace = resource("sls/spindle-trace.json");
    Path nodes = resource("sls/spindle-nodes.json");
    List<Map<String, Object>> jobs = SlsTrace.read(trace);
    assertEquals(3, jobs.size());
    Set<String> hosts = SlsBench.hostNames("SLS", trace, nodes);
    assertEquals(20, hosts.size());
    int withHost = 0;
    for (Map<String, Object> job : jobs) {
      for (Object o : (List<?>) job.get("job.tasks")) {
        @SuppressWarnings("unchecked")
        Map<String, String> t = (Map<String, String>) o;
        TaskContainerDefinition d = TaskContainerDefinition.Builder.create()
            .withCount(t, "count").withHostname(t.get("container.host"))
            .withDuration(t, "container.duration.ms").withDurationLegacy(t, "duration.ms")
            .withTaskStart(t, "container.start.ms").withTaskFinish(t, "container.end.ms")
            .withPriority(t, "container.priority").withType(t, "container.type")
            .withExecutionType(t, "container.execution.type")
            .withAllocationId(t, "container.allocation.id")
            .withRequestDelay(t, "container.request.delay").build();
        assertTrue(d.getDuration() > 0);
        assertEquals(1, d.getCount());
        if (d.getHostname() != null) {
          withHost++;
          String h = d.getHostname();
          assertTrue(h, hosts.contains(h.substring(h.lastIndexOf('/') + 1)));
        }
      }
    }
    assertEquals("every map names its block's first replica", 3, withHost);
  }

  private static Path resource(String name) throws URISyntaxException {
    return Paths.get(SlsTraceTest.class.getClassLoader().getResource(name).toURI());
  }
}
