package org.spindle.yarn;

import java.util.AbstractSequentialList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.ListIterator;

/**
 * An attempt's containers allocated and not yet pulled by its AM, in allocation order, with
 * removal by value in O(1). Hadoop keeps them in an ArrayList, and every completed container of
 * the app is removed from it by value ({@code FiCaSchedulerApp.containerCompleted}): a scan of
 * everything granted since the AM's last pull, mostly to find nothing (the AM pulled the
 * container long before it finished). At 10,000 nodes that scan was 15 % of SpindleScheduler's
 * heartbeat (issue 23). Hadoop 3.3 and 3.4 use only {@code add}, {@code size}, {@code iterator}
 * (with {@code remove}) and {@code remove(Object)}; positional reads walk the set, and positional
 * writes are refused. A container is in the list at most once (Hadoop adds each once).
 */
final class UnpulledContainers<E> extends AbstractSequentialList<E> {
  private final LinkedHashSet<E> set = new LinkedHashSet<>();

  @Override
  public int size() {
    return set.size();
  }

  @Override
  public boolean add(E e) {
    set.add(e);
    return true;
  }

  @Override
  public boolean remove(Object o) {
    return set.remove(o);
  }

  @Override
  public boolean contains(Object o) {
    return set.contains(o);
  }

  @Override
  public void clear() {
    set.clear();
  }

  @Override
  public Iterator<E> iterator() {
    return set.iterator();
  }

  /** A snapshot's iterator whose {@code remove} also removes from the list. */
  @Override
  public ListIterator<E> listIterator(int index) {
    ListIterator<E> snap = new ArrayList<>(set).listIterator(index);
    return new ListIterator<E>() {
      private E last;

      @Override
      public boolean hasNext() {
        return snap.hasNext();
      }

      @Override
      public E next() {
        last = snap.next();
        return last;
      }

      @Override
      public boolean hasPrevious() {
        return snap.hasPrevious();
      }

      @Override
      public E previous() {
        last = snap.previous();
        return last;
      }

      @Override
      public int nextIndex() {
        return snap.nextIndex();
      }

      @Override
      public int previousIndex() {
        return snap.previousIndex();
      }

      @Override
      public void remove() {
        snap.remove();
        set.remove(last);
      }

      @Override
      public void set(E e) {
        throw new UnsupportedOperationException("unpulled containers keep allocation order");
      }

      @Override
      public void add(E e) {
        throw new UnsupportedOperationException("unpulled containers keep allocation order");
      }
    };
  }
}
