package org.spindle.yarn;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * One capability object per container size, shared by every ask of that
 * size. Hadoop normalises each ask into a Resource of its own (two
 * ResourceInformation, each with its own empty tag set and attribute map:
 * about 380 bytes) and keeps one ask per host name an app names; a
 * MapReduce app of 1,200 maps names some 3,000 hosts on a large cluster, so
 * 5,000 such apps hold 15 million copies of one or two sizes (about 5.7 GB
 * of the RM's heap; rm-bench at 50,000 nodes). Hadoop treats a capability
 * as a value (an ask's clones share it), so equal ones can be one object.
 * Only memory-and-vcores capabilities are shared; one with other resource
 * types keeps its own. Thread-safe; bounded to {@link #MAX_SIZES} sizes.
 */
public final class CapabilityCache {
  /** Distinct sizes kept; asks of further sizes keep their own object. */
  public static final int MAX_SIZES = 4096;

  private final ConcurrentHashMap<Long, Resource> sizes = new ConcurrentHashMap<>();

  /** Points each ask's (normalised) capability at the shared object of its size. */
  public void share(List<ResourceRequest> asks) {
    if (asks == null) {
      return;
    }
    for (ResourceRequest r : asks) {
      Resource c = r.getCapability();
      Resource s = shared(c);
      if (s != c) {
        r.setCapability(s);
      }
    }
  }

  /** The shared object equal to {@code c}, or {@code c} itself when it cannot be shared. */
  Resource shared(Resource c) {
    if (c == null || c.getResources().length != 2) {
      return c;
    }
    long mb = c.getMemorySize();
    long vcores = c.getVirtualCores();
    // The key packs both: memory below 2^40 MB, vcores below 2^23.
    if (mb < 0 || mb >= 1L << 40 || vcores < 0 || vcores >= 1L << 23) {
      return c;
    }
    Long key = (mb << 23) | vcores;
    Resource s = sizes.get(key);
    if (s != null) {
      return s;
    }
    if (sizes.size() >= MAX_SIZES) {
      return c;
    }
    // A copy of our own: nobody else holds it, so nobody can change it.
    Resource fresh = Resource.newInstance(mb, (int) vcores);
    Resource prev = sizes.putIfAbsent(key, fresh);
    return prev != null ? prev : fresh;
  }

  int size() {
    return sizes.size();
  }
}
