package org.apache.hadoop.yarn.event;


public abstract class AbstractEvent<TYPE extends Enum<TYPE>> implements Event<TYPE> {
  public AbstractEvent(TYPE type) { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public TYPE getType() { throw new UnsupportedOperationException("compile-only stub"); }
}
