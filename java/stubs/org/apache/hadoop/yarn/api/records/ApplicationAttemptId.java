package org.apache.hadoop.yarn.api.records;


public abstract class ApplicationAttemptId implements Comparable<ApplicationAttemptId> {
  public abstract ApplicationId getApplicationId();
  @Override
  public int compareTo(ApplicationAttemptId other) { throw new UnsupportedOperationException("compile-only stub"); }
}
