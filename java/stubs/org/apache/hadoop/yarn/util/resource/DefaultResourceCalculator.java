package org.apache.hadoop.yarn.util.resource;


public class DefaultResourceCalculator extends ResourceCalculator {
  public DefaultResourceCalculator() { throw new UnsupportedOperationException("compile-only stub"); }
}
