package org.spindle.yarn;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableUtils;

/**
 * MapReduce's split files, as {@code JobSplitWriter} writes them and the AM
 * reads them ({@code SplitMetaInfoReader}, {@code JobSplit.SplitMetaInfo}):
 * {@code job.splitmetainfo} is "META-SPL", VInt version 1, VInt split count,
 * then per split a VInt location count, the locations ({@code Text}), VLong
 * start offset of the split's record in {@code job.split} and VLong input
 * length. A {@code job.split} record is the split's class name ({@code Text})
 * and the split itself; a {@code FileSplit} is its path ({@code Text}), long
 * start and long length. The same layout as spindle-hadoop's splits.rs (the
 * CLI's reader). Every length is checked against the bytes there are: a
 * forged count never allocates.
 */
final class SplitMetaInfo {
  static final byte[] HEADER = "META-SPL".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  /** {@code mapreduce.job.split.metainfo.maxsize}'s default: the largest file read. */
  static final long MAX_SIZE = 10_000_000L;
  /** Longest class name or input path read from {@code job.split}. */
  static final int MAX_TEXT = 16_384;
  /** Locations kept per split (the writer keeps mapreduce.job.max.split.locations, 15). */
  static final int MAX_LOCATIONS = 64;
  /** The classes whose {@code job.split} record is path, start, length. */
  static final List<String> FILE_SPLITS = Arrays.asList(
      "org.apache.hadoop.mapreduce.lib.input.FileSplit", "org.apache.hadoop.mapred.FileSplit");

  /** One split: where its input is, and where its record is in job.split. */
  static final class Split {
    final String[] locations;
    final long startOffset;
    final long length;

    Split(String[] locations, long startOffset, long length) {
      this.locations = locations;
      this.startOffset = startOffset;
      this.length = length;
    }
  }

  /** A FileSplit's record in job.split. */
  static final class FileRange {
    final String path;
    final long start;
    final long length;

    FileRange(String path, long start, long length) {
      this.path = path;
      this.start = start;
      this.length = length;
    }
  }

  private SplitMetaInfo() {}

  /** Parses a whole job.splitmetainfo; the message of a bad file says what and where. */
  static List<Split> parse(byte[] b) throws IOException {
    if (b.length < HEADER.length || !Arrays.equals(Arrays.copyOf(b, HEADER.length), HEADER)) {
      String found = new String(b, 0, Math.min(b.length, HEADER.length), StandardCharsets.UTF_8);
      throw new IOException("not a job.splitmetainfo file (header \"" + found
          + "\", want \"META-SPL\")");
    }
    Counting in = new Counting(b, HEADER.length);
    int version = in.vint("version");
    if (version != VERSION) {
      throw new IOException("unsupported job.splitmetainfo version " + version + " (want 1)");
    }
    int n = in.count("split count", 3);
    List<Split> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int locs = in.count("location count of split " + i, 1);
      List<String> hosts = new ArrayList<>(Math.min(locs, MAX_LOCATIONS));
      for (int j = 0; j < locs; j++) {
        String h = in.text("location " + j + " of split " + i).trim();
        if (!h.isEmpty() && !hosts.contains(h) && hosts.size() < MAX_LOCATIONS) {
          hosts.add(h);
        }
      }
      long start = in.vlong("start offset of split " + i);
      long length = in.vlong("input length of split " + i);
      out.add(new Split(hosts.toArray(new String[0]), start, length));
    }
    return out;
  }

  /**
   * The {@code job.split} record at the current position of {@code in}: its
   * file range if it is a FileSplit, else null (other splits are not read).
   */
  static FileRange fileRange(DataInput in) throws IOException {
    String cls = Text.readString(in, MAX_TEXT);
    if (!FILE_SPLITS.contains(cls)) {
      return null;
    }
    String path = Text.readString(in, MAX_TEXT);
    long start = in.readLong();
    long length = in.readLong();
    if (start < 0 || length < 0) {
      throw new IOException("FileSplit " + path + " with start " + start + " and length " + length);
    }
    return new FileRange(path, start, length);
  }

  /** A reader over the file's bytes that knows how many remain. */
  private static final class Counting {
    private final byte[] b;
    private final DataInputStream in;
    private final ByteArrayInputStream bytes;

    Counting(byte[] b, int from) {
      this.b = b;
      bytes = new ByteArrayInputStream(b, from, b.length - from);
      in = new DataInputStream(bytes);
    }

    private int at() {
      return b.length - bytes.available();
    }

    private IOException truncated(String what) {
      return new IOException("job.splitmetainfo ends inside " + what + " (truncated?)");
    }

    long vlong(String what) throws IOException {
      try {
        return WritableUtils.readVLong(in);
      } catch (EOFException e) {
        throw truncated(what);
      }
    }

    int vint(String what) throws IOException {
      int pos = at();
      long v = vlong(what);
      if (v != (int) v) {
        throw new IOException("job.splitmetainfo at byte " + pos + ": " + what + " " + v
            + " does not fit in an int");
      }
      return (int) v;
    }

    /** A count of items each at least {@code minBytes} long: no more than the bytes left hold. */
    int count(String what, int minBytes) throws IOException {
      int pos = at();
      int n = vint(what);
      if (n < 0 || (long) n * minBytes > bytes.available()) {
        throw new IOException("job.splitmetainfo at byte " + pos + ": " + what + " " + n
            + (n < 0 ? " is negative" : " runs past the end of the file (truncated?)"));
      }
      return n;
    }

    String text(String what) throws IOException {
      int pos = at();
      int n = vint(what);
      if (n < 0 || n > bytes.available()) {
        throw new IOException("job.splitmetainfo at byte " + pos + ": " + what + " of " + n
            + " bytes " + (n < 0 ? "is negative" : "runs past the end of the file (truncated?)"));
      }
      byte[] s = new byte[n];
      in.readFully(s);
      return new String(s, StandardCharsets.UTF_8);
    }
  }
}
