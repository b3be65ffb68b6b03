package org.spindle.yarn;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.channels.ClosedByInterruptException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataInputByteBuffer;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.SecretManager;

/**
 * One read of a MapReduce app's splits, through Hadoop's FileSystem API as
 * the app's user with the app's own tokens (those of its submission
 * context: what its AM reads the same file with), never with the RM's
 * Kerberos identity: the UGI is a remote user holding only those tokens, so
 * a file the user could not read fails here too. HA nameservices, ViewFS,
 * router-based federation and encryption zones work as for any client of
 * the RM's configuration.
 *
 * <p>Bounded: the split file's size ({@link SplitMetaInfo#MAX_SIZE} or the
 * RM's {@code mapreduce.job.split.metainfo.maxsize}), the lookups of
 * location-less splits ({@link #MAX_LOOKUPS} splits, {@link #MAX_FILES}
 * input files), and the deadline, checked between steps (the caller also
 * interrupts the thread at the deadline).
 */
final class SplitRead {
  /** Location-less splits whose block locations are looked up, at most. */
  static final int MAX_LOOKUPS = 10_000;
  /** Distinct input files whose block locations are fetched, at most. */
  static final int MAX_FILES = 1_000;
  /** Characters of a cause's detail kept for the log. */
  static final int MAX_DETAIL = 500;

  /** What to read: the app's split file, as whom, with which tokens. */
  static final class Job {
    final Object key;
    final String app;
    final String user;
    final URI metaInfo;
    /** job.split (for location-less splits); null: next to the meta-info file. */
    final URI splitFile;
    /** The submission context's tokens (a token storage stream); null if none. */
    final byte[] tokens;

    Job(Object key, String app, String user, URI metaInfo, URI splitFile, byte[] tokens) {
      this.key = key;
      this.app = app;
      this.user = user;
      this.metaInfo = metaInfo;
      this.splitFile = splitFile;
      this.tokens = tokens;
    }
  }

  /** A read that failed, with a short cause an admin can act on. */
  static final class Failure extends IOException {
    private static final long serialVersionUID = 1L;

    Failure(String cause, String detail, Throwable e) {
      super(cause + (detail.isEmpty() ? "" : " (" + firstLine(detail) + ")"), e);
    }

    /** A NameNode's message carries its stack trace: the log line keeps the first line. */
    private static String firstLine(String s) {
      int nl = s.indexOf('\n');
      String line = (nl < 0 ? s : s.substring(0, nl)).trim();
      return line.length() > MAX_DETAIL ? line.substring(0, MAX_DETAIL) + "..." : line;
    }
  }

  /** What a read found: each split's hosts (comma separated), and how many were looked up. */
  static final class Result {
    final String[] hosts;
    final int lookedUp;

    Result(String[] hosts, int lookedUp) {
      this.hosts = hosts;
      this.lookedUp = lookedUp;
    }
  }

  private SplitRead() {}

  /**
   * Reads {@code job} before {@code deadlineNanos} ({@link System#nanoTime});
   * {@code conf} is the RM's configuration, {@code maxBytes} the largest
   * split file read.
   */
  static Result read(Configuration conf, Job job, long maxBytes, long deadlineNanos)
      throws Failure {
    UserGroupInformation ugi;
    try {
      ugi = userOf(job);
    } catch (Failure f) {
      throw f;
    } catch (IOException e) {
      throw new Failure("unreadable tokens in the submission context", e.toString(), e);
    }
    try {
      return ugi.doAs((PrivilegedExceptionAction<Result>) () ->
          readAs(conf, job, maxBytes, deadlineNanos));
    } catch (Failure f) {
      throw f;
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw classify(e, deadlineNanos);
    } finally {
      try {
        // FileSystem.get caches per UGI: this read's UGI is new, its clients go with it.
        FileSystem.closeAllForUGI(ugi);
      } catch (IOException e) {
        // closing clients of a finished read: nothing to do
      }
    }
  }

  /**
   * The app's user holding only the app's tokens. On a secure cluster an
   * app without tokens is refused here, before any NameNode is asked.
   */
  static UserGroupInformation userOf(Job job) throws IOException {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(job.user);
    if (job.tokens != null && job.tokens.length > 0) {
      Credentials creds = new Credentials();
      DataInputByteBuffer in = new DataInputByteBuffer();
      in.reset(java.nio.ByteBuffer.wrap(job.tokens));
      creds.readTokenStorageStream(in);
      ugi.addCredentials(creds);
    }
    if (UserGroupInformation.isSecurityEnabled() && ugi.getTokens().isEmpty()) {
      throw new Failure("no delegation token in the submission context",
          "Kerberos is on and the RM does not read as itself", null);
    }
    return ugi;
  }

  private static Result readAs(Configuration conf, Job job, long maxBytes, long deadline)
      throws IOException {
    Path meta = new Path(job.metaInfo);
    FileSystem fs = FileSystem.get(job.metaInfo, conf);
    byte[] bytes;
    long len = fs.getFileStatus(meta).getLen();
    if (len > maxBytes) {
      throw new Failure("split file too large", len + " bytes, more than " + maxBytes
          + " (mapreduce.job.split.metainfo.maxsize)", null);
    }
    bytes = new byte[(int) len];
    try (FSDataInputStream in = fs.open(meta)) {
      in.readFully(0, bytes);
    }
    List<SplitMetaInfo.Split> splits;
    try {
      splits = SplitMetaInfo.parse(bytes);
    } catch (IOException e) {
      throw new Failure("not a valid split file", e.getMessage(), e);
    }
    String[] hosts = new String[splits.size()];
    List<Integer> bare = new ArrayList<>();
    for (int i = 0; i < hosts.length; i++) {
      String[] l = splits.get(i).locations;
      hosts[i] = String.join(",", l);
      if (l.length == 0 && bare.size() < MAX_LOOKUPS) {
        bare.add(i);
      }
    }
    int found = 0;
    if (!bare.isEmpty()) {
      found = lookUp(conf, job, meta, splits, bare, hosts, deadline);
    }
    return new Result(hosts, found);
  }

  /**
   * The hosts of location-less FileSplits (NLineInputFormat writes none):
   * each one's record in job.split names its file and range; the hosts are
   * those of the block holding its first byte, as FileInputFormat picks them.
   */
  private static int lookUp(Configuration conf, Job job, Path meta,
      List<SplitMetaInfo.Split> splits, List<Integer> bare, String[] hosts, long deadline)
      throws IOException {
    Path file = job.splitFile != null ? new Path(job.splitFile)
        : new Path(meta.getParent(), SplitFiles.SPLIT_FILE);
    Map<String, BlockLocation[]> blocks = new HashMap<>();
    int found = 0;
    try (FSDataInputStream in = file.getFileSystem(conf).open(file)) {
      byte[] head = new byte[3];
      in.readFully(0, head);
      if (!"SPL".equals(new String(head, java.nio.charset.StandardCharsets.US_ASCII))) {
        throw new Failure("not a valid split file", file + " does not start with \"SPL\"",
            null);
      }
      for (int i : bare) {
        checkDeadline(deadline);
        in.seek(splits.get(i).startOffset);
        SplitMetaInfo.FileRange r = SplitMetaInfo.fileRange(in);
        if (r == null) {
          continue;
        }
        BlockLocation[] b = blocks.get(r.path);
        if (b == null) {
          if (blocks.size() >= MAX_FILES) {
            continue;
          }
          Path p = new Path(r.path);
          FileSystem fs = p.getFileSystem(conf);
          b = fs.getFileBlockLocations(fs.getFileStatus(p), 0, Long.MAX_VALUE);
          blocks.put(r.path, b);
        }
        for (BlockLocation l : b) {
          if (l.getOffset() <= r.start && r.start < l.getOffset() + Math.max(1, l.getLength())) {
            hosts[i] = String.join(",", l.getHosts());
            found++;
            break;
          }
        }
      }
    }
    return found;
  }

  static void checkDeadline(long deadline) throws Failure {
    if (System.nanoTime() - deadline > 0) {
      throw new Failure("timed out", "", null);
    }
  }

  /** The short cause of a failed read: what an admin (or the job's user) can act on. */
  static Failure classify(Throwable e, long deadline) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = e; t != null && chain.size() < 16 && !chain.contains(t); t = t.getCause()) {
      chain.add(t instanceof RemoteException ? unwrap((RemoteException) t) : t);
    }
    String detail = e.toString();
    for (Throwable t : chain) {
      if (t instanceof Failure) {
        return (Failure) t;
      }
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      String cls = t.getClass().getName();
      if (t instanceof SecretManager.InvalidToken || cls.endsWith("InvalidToken")) {
        if (m.contains("expired")) {
          return new Failure("expired token", t.toString(), e);
        }
        if (m.contains("can't be found in cache") || m.contains("cancel")) {
          return new Failure("cancelled or unknown token", t.toString(), e);
        }
        return new Failure("token refused", t.toString(), e);
      }
    }
    for (Throwable t : chain) {
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (m.contains("client cannot authenticate via") || m.contains("gssexception")) {
        return new Failure("no usable token for the split file's filesystem", t.toString(), e);
      }
      if (t instanceof AccessControlException || m.contains("permission denied")) {
        return new Failure("permission denied", t.toString(), e);
      }
      if (t instanceof FileNotFoundException) {
        return new Failure("path missing", t.toString(), e);
      }
    }
    for (Throwable t : chain) {
      if (t instanceof InterruptedIOException || t instanceof InterruptedException
          || t instanceof ClosedByInterruptException) {
        return new Failure(System.nanoTime() - deadline >= 0 ? "timed out" : "interrupted",
            detail, e);
      }
    }
    return new Failure("I/O error", detail, e);
  }

  private static Throwable unwrap(RemoteException r) {
    IOException u = r.unwrapRemoteException(SecretManager.InvalidToken.class,
        AccessControlException.class, FileNotFoundException.class);
    return u;
  }
}
