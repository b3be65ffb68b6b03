package org.apache.hadoop.yarn.event;


public interface Dispatcher {
  EventHandler<Event> getEventHandler();
}
