package org.apache.hadoop.yarn.event;


@SuppressWarnings("rawtypes")
public interface EventHandler<T extends Event> {
  void handle(T event);
}
