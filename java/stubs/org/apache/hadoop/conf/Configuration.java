package org.apache.hadoop.conf;


public class Configuration {
  public Configuration() { throw new UnsupportedOperationException("compile-only stub"); }
  public Configuration(Configuration other) { throw new UnsupportedOperationException("compile-only stub"); }
  public String get(String name) { throw new UnsupportedOperationException("compile-only stub"); }
  public int getInt(String name, int defaultValue) { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean getBoolean(String name, boolean defaultValue) { throw new UnsupportedOperationException("compile-only stub"); }
  public void addResource(String name) { throw new UnsupportedOperationException("compile-only stub"); }
}
