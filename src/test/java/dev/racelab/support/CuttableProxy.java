package dev.racelab.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a real server that a test can cut, to make the server "die" mid-run
 * without killing a server other tests share, or freeze, to make it stop answering while its
 * connections stay open (what a server stopped with SIGSTOP, or a dead network path, looks like).
 */
public final class CuttableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** The relay's own connections to the server, a subset of {@code sockets}. */
    private final List<Socket> upstream = new CopyOnWriteArrayList<>();
    private volatile boolean cut;
    private volatile boolean frozen;
    /** How long the server's first reply on each new connection is held back: a server slow to answer a login. */
    private volatile Duration firstReplyLate = Duration.ZERO;

    public CuttableProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!cut) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                if (frozen) {
                    // Taken, and never answered.
                    pipe(client.getInputStream(), OutputStream.nullOutputStream());
                    continue;
                }
                Socket server = new Socket(host, port);
                sockets.add(server);
                upstream.add(server);
                relay(client, server, Duration.ZERO);
                relay(server, client, firstReplyLate);
            } catch (IOException e) {
                return;
            }
        }
    }

    /**
     * Copies what {@code from} sends to {@code to}. When {@code from} closes (a server that ends a
     * session, a client that disconnects), the relay closes both, so the other end learns of it as
     * it would without a relay; unless frozen, when nothing at all gets through, a close neither.
     */
    private void relay(Socket from, Socket to, Duration late) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        pipe(in, out, late, () -> {
            if (!frozen) {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    /**
     * From now on, the server's first reply on each new connection reaches the client {@code late}
     * after it came (the rest follows it in order): a server that takes its time over every login,
     * as an overloaded machine's does.
     */
    public void holdFirstReplies(Duration late) {
        firstReplyLate = late;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }

    private void pipe(InputStream in, OutputStream out) {
        pipe(in, out, Duration.ZERO, () -> { });
    }

    private void pipe(InputStream in, OutputStream out, Duration firstLate, Runnable ended) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16_384];
            boolean first = true;
            try {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (frozen) {
                        continue;  // Read and dropped: nothing gets through either way.
                    }
                    if (first && !firstLate.isZero()) {
                        // The server being slow, played by the relay: the hold-up is the point, not a wait.
                        Thread.sleep(firstLate.toMillis());
                    }
                    first = false;
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // One side closed: the relay ends.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ended.run();
            }
        }, "proxy-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The local ports of the relay's open connections to the server: what the server sees as its
     * clients' ports ({@code pg_stat_activity.client_port}, {@code CLIENT LIST}'s {@code addr}), so a
     * test can tell the sessions that came through this relay from anyone else's on a shared server.
     */
    public Set<Integer> upstreamPorts() {
        Set<Integer> ports = new TreeSet<>();
        for (Socket socket : upstream) {
            if (!socket.isClosed()) {
                ports.add(socket.getLocalPort());
            }
        }
        return ports;
    }

    /**
     * From now on nothing gets through in either direction, and new connections are taken but never
     * answered; every connection stays open: to the client, the server has gone silent.
     */
    public void freeze() {
        frozen = true;
    }

    /** Closes every connection and stops listening: to the client, the server is gone. */
    public void cut() {
        cut = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing anyway.
            }
        }
    }

    @Override
    public void close() {
        cut();
    }
}
