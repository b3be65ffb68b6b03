package org.apache.hadoop.yarn.event;


public interface Event<TYPE extends Enum<TYPE>> {
  TYPE getType();
}
