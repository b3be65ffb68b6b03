package org.spindle.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import org.apache.hadoop.net.StandardSocketFactory;

/**
 * Hadoop's socket factory, with every outgoing socket bound to this host's
 * own loopback address, for scripts/hadoop-bench's cluster of hosts on
 * 127.0.1.x. Without it a connection between two loopback addresses leaves
 * from 127.0.0.1, and the NameNode, which takes a DataNode's address from
 * its RPC connection, sees every DataNode as 127.0.0.1 (and a writer on a
 * DataNode's host as no DataNode at all). The address is the system
 * property {@code spindle.bench.bind}, else the NodeManager's host name that
 * YARN gives every container ({@code NM_HOST}); unbound when neither is set.
 * Set {@code hadoop.rpc.socket.factory.class.default} to this class.
 */
public final class BoundSocketFactory extends StandardSocketFactory {
  private static final InetAddress LOCAL = local();

  private static InetAddress local() {
    String name = System.getProperty("spindle.bench.bind");
    if (name == null || name.isEmpty()) {
      name = System.getenv("NM_HOST");
    }
    if (name == null || name.isEmpty()) {
      return null;
    }
    try {
      return InetAddress.getByName(name);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("spindle.bench.bind / NM_HOST " + name
          + " does not resolve: " + e.getMessage(), e);
    }
  }

  @Override
  public Socket createSocket() throws IOException {
    Socket s = super.createSocket();
    if (LOCAL != null) {
      s.bind(new InetSocketAddress(LOCAL, 0));
    }
    return s;
  }

  /** A caller that names its own local address gets that one. */
  private Socket boundTo(InetAddress localAddr, int localPort) throws IOException {
    Socket s = super.createSocket();
    s.bind(new InetSocketAddress(localAddr, localPort));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress addr, int port, InetAddress localAddr, int localPort)
      throws IOException {
    Socket s = boundTo(localAddr, localPort);
    s.connect(new InetSocketAddress(addr, port));
    return s;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localAddr, int localPort)
      throws IOException {
    Socket s = boundTo(localAddr, localPort);
    s.connect(new InetSocketAddress(host, port));
    return s;
  }
}
