package org.spindle.bench.sls;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an SLS trace (a stream of JSON job objects, SchedulerLoadSimulator.md)
 * into the maps SLS's own AMDefinitionFactory.createFromSlsTrace takes: every
 * value a string, {@code job.tasks} a list of such maps.
 *
 * <p>hadoop-sls 3.4.2 cannot read its own format: AMRunner.startAMFromSLSTrace
 * binds each job to {@code Map<String, String>}, so Jackson refuses every job
 * with a {@code job.tasks} array ("Cannot deserialize value of type
 * java.lang.String from Array value"), and AMRunner only logs it: the
 * simulation then runs no job at all. This reader binds what that code means
 * to, and names the file, the job and the key of anything it cannot take.
 */
public final class SlsTrace {
  private SlsTrace() {}

  /** Bounds on outside input. */
  static final long MAX_BYTES = 2L << 30;
  static final int MAX_JOBS = 1_000_000;
  static final int MAX_TASKS_PER_JOB = 1_000_000;

  /** A bad trace: the message names the file, the job and the key. */
  public static final class TraceException extends IOException {
    private static final long serialVersionUID = 1L;

    TraceException(String message) {
      super(message);
    }
  }

  /** The trace's jobs; objects without {@code job.tasks} that describe nodes ({@code num.nodes}) are skipped. */
  public static List<Map<String, Object>> read(Path file) throws IOException {
    if (Files.size(file) > MAX_BYTES) {
      throw new TraceException(file + ": larger than " + MAX_BYTES + " bytes");
    }
    List<Map<String, Object>> jobs = new ArrayList<>();
    ObjectMapper mapper = new ObjectMapper();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        JsonParser p = new JsonFactory().createParser(in)) {
      MappingIterator<JsonNode> it = mapper.readValues(p, JsonNode.class);
      int index = 0;
      while (hasNext(it, file)) {
        index++;
        JsonNode node = next(it, file);
        if (!node.isObject()) {
          throw new TraceException(file + ": item " + index + " is " + kind(node)
              + ", not a job object (an SLS trace is a stream of JSON objects, not an array)");
        }
        if (!node.has("job.tasks") && node.has("num.nodes")) {
          continue; // a node-generation object, for SLS's NMRunner
        }
        if (jobs.size() >= MAX_JOBS) {
          throw new TraceException(file + ": more than " + MAX_JOBS + " jobs");
        }
        jobs.add(job(file, index, node));
      }
    }
    return jobs;
  }

  private static Map<String, Object> job(Path file, int index, JsonNode node)
      throws TraceException {
    JsonNode id = node.get("job.id");
    String where = file + ": job " + index
        + (id != null && id.isValueNode() ? " (job.id " + id.asText() + ")" : "");
    Map<String, Object> job = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> f = node.fields(); f.hasNext();) {
      Map.Entry<String, JsonNode> e = f.next();
      if (e.getKey().equals("job.tasks")) {
        continue;
      }
      job.put(e.getKey(), scalar(where, e.getKey(), e.getValue()));
    }
    JsonNode tasks = node.get("job.tasks");
    if (tasks == null || !tasks.isArray() || tasks.size() == 0) {
      throw new TraceException(where + ": job.tasks must be a non-empty array of task objects, got "
          + (tasks == null ? "none" : kind(tasks)));
    }
    if (tasks.size() > MAX_TASKS_PER_JOB) {
      throw new TraceException(where + ": more than " + MAX_TASKS_PER_JOB + " tasks");
    }
    List<Map<String, String>> list = new ArrayList<>(tasks.size());
    for (int t = 0; t < tasks.size(); t++) {
      JsonNode task = tasks.get(t);
      String at = where + ": job.tasks[" + t + "]";
      if (!task.isObject()) {
        throw new TraceException(at + " is " + kind(task) + ", not a task object");
      }
      Map<String, String> m = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> f = task.fields(); f.hasNext();) {
        Map.Entry<String, JsonNode> e = f.next();
        m.put(e.getKey(), scalar(at, e.getKey(), e.getValue()));
      }
      list.add(m);
    }
    job.put("job.tasks", list);
    return job;
  }

  /** A value as SLS parses it (Integer.parseInt etc. on the text). */
  private static String scalar(String where, String key, JsonNode v) throws TraceException {
    if (!v.isValueNode() || v.isNull()) {
      throw new TraceException(where + ": " + key + " must be a string or a number, got " + kind(v));
    }
    return v.asText();
  }

  private static String kind(JsonNode n) {
    return n.isArray() ? "an array" : n.isObject() ? "an object" : n.isNull() ? "null"
        : n.isTextual() ? "the string \"" + n.asText() + "\"" : "the value " + n.asText();
  }

  private static boolean hasNext(MappingIterator<JsonNode> it, Path file) throws TraceException {
    try {
      return it.hasNextValue();
    } catch (IOException e) {
      throw notJson(file, e);
    }
  }

  private static JsonNode next(MappingIterator<JsonNode> it, Path file) throws TraceException {
    try {
      return it.nextValue();
    } catch (IOException e) {
      throw notJson(file, e);
    }
  }

  private static TraceException notJson(Path file, IOException e) {
    String at = "";
    if (e instanceof JsonProcessingException) {
      JsonLocation l = ((JsonProcessingException) e).getLocation();
      if (l != null) {
        at = " at line " + l.getLineNr() + ", column " + l.getColumnNr();
      }
      return new TraceException(file + ": not JSON" + at + ": "
          + ((JsonProcessingException) e).getOriginalMessage());
    }
    return new TraceException(file + ": " + e.getMessage());
  }
}
