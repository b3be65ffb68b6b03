package org.apache.hadoop.yarn.util.resource;

import org.apache.hadoop.yarn.api.records.Resource;

public class Resources {
  public static Resource createResource(long memory, int cores) { throw new UnsupportedOperationException("compile-only stub"); }
  public static Resource addTo(Resource lhs, Resource rhs) { throw new UnsupportedOperationException("compile-only stub"); }
  public static Resource subtract(Resource lhs, Resource rhs) { throw new UnsupportedOperationException("compile-only stub"); }
  public static Resource subtractFrom(Resource lhs, Resource rhs) { throw new UnsupportedOperationException("compile-only stub"); }
  public static boolean greaterThanOrEqual(ResourceCalculator resourceCalculator,
      Resource clusterResource, Resource lhs, Resource rhs) { throw new UnsupportedOperationException("compile-only stub"); }
}
