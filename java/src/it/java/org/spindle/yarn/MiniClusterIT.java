package org.spindle.yarn;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.StringTokenizer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Integration test on a real ResourceManager (facts file section 7): HDFS
 * and YARN mini clusters in this JVM, the RM running SpindleScheduler, and
 * WordCount-shaped jobs (several map-only-input files, a combiner, one
 * reducer), two of them at once. Checks that every job succeeds with the
 * right counts, that maps ran (the MR counters), and that the core served
 * every heartbeat (the JMX fallback counter stays 0).
 *
 * <p>Needs the Hadoop jars and the minicluster test jars on the classpath;
 * scripts/minicluster-it builds the classpath from a Hadoop installation.
 * System properties: spindle.library.path (the .so), spindle.it.jar (a jar
 * of this class, shipped to the task JVMs).
 */
public final class MiniClusterIT {
  public static final class TokenMapper extends Mapper<LongWritable, Text, Text, IntWritable> {
    private static final IntWritable ONE = new IntWritable(1);
    private final Text word = new Text();

    @Override
    protected void map(LongWritable key, Text value, Context context)
        throws IOException, InterruptedException {
      StringTokenizer it = new StringTokenizer(value.toString());
      while (it.hasMoreTokens()) {
        word.set(it.nextToken());
        context.write(word, ONE);
      }
    }
  }

  public static final class SumReducer extends Reducer<Text, IntWritable, Text, IntWritable> {
    @Override
    protected void reduce(Text key, Iterable<IntWritable> values, Context context)
        throws IOException, InterruptedException {
      int sum = 0;
      for (IntWritable v : values) {
        sum += v.get();
      }
      context.write(key, new IntWritable(sum));
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  public static void main(String[] args) throws Exception {
    try {
      Class.forName("org.apache.hadoop.yarn.server.MiniYARNCluster");
    } catch (ClassNotFoundException e) {
      System.out.println("SKIP MiniClusterIT: the Hadoop minicluster test jars are not on the"
          + " classpath (see scripts/minicluster-it)");
      return;
    }
    String itJar = System.getProperty("spindle.it.jar");
    if (itJar == null) {
      throw new IllegalArgumentException("set -Dspindle.it.jar (scripts/minicluster-it does)");
    }
    Configuration conf = new YarnConfiguration();
    // Exactly 4 map attempts per job: no speculative copies.
    conf.setBoolean("mapreduce.map.speculative", false);
    conf.setBoolean("mapreduce.reduce.speculative", false);
    conf.set(YarnConfiguration.RM_SCHEDULER, SpindleScheduler.class.getName());
    conf.set(SpindleSettings.LIBRARY_PATH, System.getProperty("spindle.library.path", ""));
    conf.set(SpindleSettings.POLICY, System.getProperty("spindle.policy", "asm1-comm"));
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf).numDataNodes(3)
        .racks(new String[] {"/r1", "/r1", "/r2"}).build();
    MiniMRYarnCluster yarn = null;
    int passed = 0;
    try {
      FileSystem fs = dfs.getFileSystem();
      conf.set("fs.defaultFS", fs.getUri().toString());
      yarn = new MiniMRYarnCluster("spindle-it", 3);
      yarn.init(conf);
      yarn.start();
      Configuration jobConf = new Configuration(yarn.getConfig());
      List<Job> jobs = new ArrayList<>();
      for (int j = 0; j < 3; j++) {
        Path in = new Path("/spindle-it/in" + j);
        for (int f = 0; f < 4; f++) {
          try (Writer w = new OutputStreamWriter(fs.create(new Path(in, "part-" + f)),
              StandardCharsets.UTF_8)) {
            for (int line = 0; line < 1000; line++) {
              w.write("spindle yarn hdfs locality " + (line % 7) + "\n");
            }
          }
        }
        Job job = Job.getInstance(jobConf, "spindle-it-wordcount-" + j);
        job.setJar(itJar);
        job.setMapperClass(TokenMapper.class);
        job.setCombinerClass(SumReducer.class);
        job.setReducerClass(SumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(IntWritable.class);
        FileInputFormat.addInputPath(job, in);
        FileOutputFormat.setOutputPath(job, new Path("/spindle-it/out" + j));
        jobs.add(job);
      }
      // Job 0 alone, then jobs 1 and 2 at the same time.
      check(jobs.get(0).waitForCompletion(false), "job 0 failed");
      jobs.get(1).submit();
      jobs.get(2).submit();
      for (Job job : jobs.subList(1, 3)) {
        check(job.waitForCompletion(false), job.getJobName() + " failed");
      }
      for (int j = 0; j < jobs.size(); j++) {
        Job job = jobs.get(j);
        long maps = job.getCounters().findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue();
        long local = job.getCounters().findCounter(JobCounter.DATA_LOCAL_MAPS).getValue();
        check(maps == 4, job.getJobName() + ": " + maps + " maps, expected 4");
        System.out.println(job.getJobName() + ": " + maps + " maps, " + local + " data-local");
        long spindle = 0;
        for (FileStatus s : fs.listStatus(new Path("/spindle-it/out" + j))) {
          if (!s.getPath().getName().startsWith("part-")) {
            continue;
          }
          try (BufferedReader r = new BufferedReader(
              new InputStreamReader(fs.open(s.getPath()), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
              if (line.startsWith("spindle\t")) {
                spindle = Long.parseLong(line.substring("spindle\t".length()));
              }
            }
          }
        }
        check(spindle == 4000, job.getJobName() + ": spindle counted " + spindle + " times");
        passed++;
      }
      // All NodeManagers of a mini cluster run on "localhost": the core keeps
      // one node for the host (CoreBridge), so neither counter may move.
      ObjectName bean = new ObjectName("Hadoop:service=ResourceManager,name=SpindleScheduler");
      for (String counter : new String[] {"FallbackHeartbeats", "CoreErrors"}) {
        Object n = ManagementFactory.getPlatformMBeanServer().getAttribute(bean, counter);
        check(((Long) n) == 0, counter + " = " + n);
      }
      passed++;
      System.out.println(passed + " passed, 0 failed");
    } finally {
      if (yarn != null) {
        yarn.stop();
      }
      dfs.shutdown();
    }
  }
}
