package org.spindle.bench.sls;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Paths;
import java.util.Map;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.sls.AMDefinition;
import org.apache.hadoop.yarn.sls.AMDefinitionFactory;
import org.apache.hadoop.yarn.sls.AMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.SLSRunner.TraceType;
import org.apache.hadoop.yarn.sls.scheduler.TaskRunner;

/**
 * SLS's AMRunner with SLS traces read by {@link SlsTrace} (hadoop-sls 3.4.2's
 * own reader refuses every job that has tasks); each job then goes through
 * SLS's AMDefinitionFactory and AMRunner as it would have. RUMEN and SYNTH
 * input is SLS's own path, unchanged. A job SLS refuses fails the run,
 * naming it (SLS itself logs and drops it).
 */
final class SlsTraceAmRunner extends AMRunner {
  private final SLSRunner sls;
  private TraceType type;
  private String[] traces = new String[0];

  private SlsTraceAmRunner(TaskRunner runner, SLSRunner sls) {
    super(runner, sls);
    this.sls = sls;
  }

  /** Puts a new one in {@code sls} in place of the AMRunner it made. */
  static void install(SLSRunner sls) throws ReflectiveOperationException {
    Field runnerField = SLSRunner.class.getDeclaredField("runner");
    runnerField.setAccessible(true);
    SlsTraceAmRunner am = new SlsTraceAmRunner((TaskRunner) runnerField.get(null), sls);
    am.init(sls.getConf());
    Field f = SLSRunner.class.getDeclaredField("amRunner");
    f.setAccessible(true);
    f.set(sls, am);
  }

  @Override
  public void setInputType(TraceType type) {
    this.type = type;
    super.setInputType(type);
  }

  @Override
  public void setInputTraces(String[] traces) {
    this.traces = traces.clone();
    super.setInputTraces(traces);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void startAM() throws YarnException, IOException {
    if (type == TraceType.SLS) {
      Method startAMs;
      try {
        startAMs = AMRunner.class.getDeclaredMethod("startAMs", AMDefinition.class);
        startAMs.setAccessible(true);
      } catch (NoSuchMethodException e) {
        throw new YarnException("this hadoop-sls has no AMRunner.startAMs(AMDefinition)", e);
      }
      for (String trace : traces) {
        int n = 0;
        for (Map<String, Object> job : SlsTrace.read(Paths.get(trace))) {
          n++;
          AMDefinition def;
          try {
            // SLS's own parsing of a job; the erased map holds job.tasks as a list.
            def = AMDefinitionFactory.createFromSlsTrace((Map<String, String>) (Map<?, ?>) job, sls);
          } catch (YarnException | RuntimeException e) {
            throw new YarnException(trace + ": job " + n + " (job.id " + job.get("job.id")
                + "): SLS refused it: " + e, e);
          }
          try {
            startAMs.invoke(this, def);
          } catch (IllegalAccessException | InvocationTargetException e) {
            throw new YarnException(trace + ": job " + n + ": could not start its AM", e);
          }
        }
      }
      // AMRunner's own loop then reads nothing and counts the AMs started above.
      super.setInputTraces(new String[0]);
    }
    super.startAM();
  }
}
