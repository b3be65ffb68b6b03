package org.apache.hadoop.service;

import org.apache.hadoop.conf.Configuration;

public abstract class AbstractService {
  public AbstractService(String name) { throw new UnsupportedOperationException("compile-only stub"); }
  protected void serviceInit(Configuration conf) throws Exception { throw new UnsupportedOperationException("compile-only stub"); }
  protected void serviceStart() throws Exception { throw new UnsupportedOperationException("compile-only stub"); }
  protected void serviceStop() throws Exception { throw new UnsupportedOperationException("compile-only stub"); }
}
