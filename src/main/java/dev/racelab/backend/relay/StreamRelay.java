package dev.racelab.backend.relay;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * A TCP relay RaceLab owns on a replication stream: a replica (or standby) connects to the relay
 * as if to its primary, and the relay connects on to the primary. What the primary sends can be
 * <em>held</em>: kept in the relay, in order, not passed on, until it is released. That is the
 * gate on replication: a write the primary acknowledged that has not reached the replica. It needs
 * no root and leaves both servers as they are; a replica stopped by a signal would not do (the
 * bytes would wait in its socket).
 *
 * <p>It listens on loopback only, on a port the system chooses. Each connection it accepts gets
 * two pump threads from {@code threads}: the replica's bytes go on at once; the primary's go on
 * unless held. Holding and releasing apply to every connection, now and later.
 *
 * <p>Threads: the accepting thread and the pumps are its own; any thread may hold, release, ask
 * and close. Each connection's held bytes and its way to the replica are guarded by that
 * connection, so what is released goes out before anything that arrives after.
 */
public final class StreamRelay implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;
    private static final long JOIN_MILLIS = 5_000;

    private final String name;
    private final InetSocketAddress primary;
    private final ThreadFactory threads;
    private final ServerSocket listener;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final List<Thread> started = new ArrayList<>();
    /** Whether only the connections that turn out to be a replica's are held (a relay in front of a server). */
    private final boolean replicasOnly;
    private volatile boolean held;
    private volatile boolean closed;

    private StreamRelay(String name, InetSocketAddress primary, ThreadFactory threads, ServerSocket listener,
                        boolean replicasOnly) {
        this.name = name;
        this.primary = primary;
        this.threads = threads;
        this.listener = listener;
        this.replicasOnly = replicasOnly;
    }

    /**
     * Opens a relay to {@code primary}, listening on a loopback port of its own, its threads
     * ({@code relay-<name>}, …) from {@code threads}.
     */
    public static StreamRelay open(String name, InetSocketAddress primary, ThreadFactory threads) throws IOException {
        return open(name, primary, threads, false);
    }

    /**
     * Opens a relay in front of a Redis server, which everyone (clients, Sentinels, replicas) reaches
     * it through: only a connection whose client says it is a replica ({@code REPLCONF}, the first
     * thing a replica sends) is held; every other passes at once. So the relay stays on the
     * replication stream whichever server is the primary after a failover, and whatever Sentinel
     * tells a replica to follow.
     */
    public static StreamRelay inFrontOf(String name, InetSocketAddress server, ThreadFactory threads)
            throws IOException {
        return open(name, server, threads, true);
    }

    private static StreamRelay open(String name, InetSocketAddress primary, ThreadFactory threads,
                                    boolean replicasOnly) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        StreamRelay relay = new StreamRelay(name, primary, threads, listener, replicasOnly);
        relay.start("relay-" + name, relay::accept);
        return relay;
    }

    /** The loopback port a replica connects to instead of its primary's. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Whether the primary's bytes are being held. */
    public boolean holding() {
        return held;
    }

    /** From now on the primary's bytes stay in the relay, on every connection. */
    public void hold() {
        held = true;
    }

    /** Passes on everything held, in order, and lets the primary's bytes through from now on. */
    public void release() throws IOException {
        held = false;
        IOException failed = null;
        for (Link link : links) {
            try {
                link.flush();
            } catch (IOException e) {
                failed = failed == null ? e : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** How many of the primary's bytes the relay holds now, over every connection. */
    public long heldBytes() {
        long total = 0;
        for (Link link : links) {
            total += link.heldBytes();
        }
        return total;
    }

    /** How many connections pass through the relay now. */
    public int connections() {
        return links.size();
    }

    /** Stops listening, cuts every connection (what was held is dropped) and waits for its threads. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Closing anyway.
        }
        for (Link link : links) {
            link.cut();
        }
        List<Thread> all;
        synchronized (started) {
            all = List.copyOf(started);
        }
        for (Thread thread : all) {
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void accept() {
        while (!closed) {
            Socket replica;
            try {
                replica = listener.accept();
            } catch (IOException e) {
                return;
            }
            Socket upstream = new Socket();
            try {
                // No Nagle on either side: a standby's small acknowledgements would wait for a
                // delayed ACK (some 40 ms), and every synchronous commit with them.
                replica.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(primary, 5_000);
            } catch (IOException e) {
                // The primary is gone: the replica finds its connection closed, as it would.
                closeQuietly(replica);
                closeQuietly(upstream);
                continue;
            }
            Link link = new Link(replica, upstream);
            links.add(link);
            if (closed) {
                link.cut();
                return;
            }
            start("relay-" + name + "-up", link::fromReplica);
            start("relay-" + name + "-down", link::fromPrimary);
        }
    }

    private void start(String threadName, Runnable work) {
        Thread thread = threads.newThread(work);
        thread.setName(threadName);
        synchronized (started) {
            started.removeIf(t -> !t.isAlive());
            started.add(thread);
        }
        thread.start();
    }

    /** Whether a client's bytes carry Redis's {@code REPLCONF} command, which only a replica sends. */
    private static boolean saysReplconf(byte[] buffer, int n) {
        outer:
        for (int i = 0; i + REPLCONF.length <= n; i++) {
            for (int j = 0; j < REPLCONF.length; j++) {
                if (Character.toUpperCase(buffer[i + j]) != REPLCONF[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static final byte[] REPLCONF = "REPLCONF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Nothing more to do.
        }
    }

    /** One replica's connection and its connection on to the primary. */
    private final class Link {

        private final Socket client;
        private final Socket upstream;
        /** The primary's bytes held back; guarded by {@code this}, with the writes to the replica. */
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        /** Whether this connection's client is a replica: its primary's bytes may be held. */
        private volatile boolean replica = !replicasOnly;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        /** The replica's bytes go on to the primary at once. */
        void fromReplica() {
            pump(client, upstream, false);
        }

        /** The primary's bytes go on to the replica unless held. */
        void fromPrimary() {
            pump(upstream, client, true);
        }

        private void pump(Socket from, Socket to, boolean holdable) {
            byte[] buffer = new byte[BUFFER];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (holdable) {
                        pass(out, buffer, n);
                    } else {
                        if (!replica && saysReplconf(buffer, n)) {
                            replica = true;
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                }
            } catch (SocketException e) {
                // Cut: by the other side, or by close.
            } catch (IOException e) {
                // The stream ended badly: both sides see their connection close.
            } finally {
                cut();
            }
        }

        private synchronized void pass(OutputStream out, byte[] buffer, int n) throws IOException {
            if (held && replica) {
                kept.write(buffer, 0, n);
            } else {
                kept.writeTo(out);
                kept.reset();
                out.write(buffer, 0, n);
                out.flush();
            }
        }

        synchronized void flush() throws IOException {
            if (kept.size() > 0 && !client.isClosed()) {
                OutputStream out = client.getOutputStream();
                kept.writeTo(out);
                kept.reset();
                out.flush();
            }
        }

        synchronized long heldBytes() {
            return kept.size();
        }

        void cut() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }
}
