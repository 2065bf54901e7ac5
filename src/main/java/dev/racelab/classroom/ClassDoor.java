package dev.racelab.classroom;

import dev.racelab.tasks.Background;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a class's participants on other machines reach RaceLab's embedded servers, which listen on
 * this machine's loopback only: a door on the class's address that passes connections on to one
 * server, open while the class is and closed with it. Nothing else of the servers is reachable.
 *
 * <p>The embedded PostgreSQL lets RaceLab's own sessions in from this machine without a password;
 * through the door every session would come from this machine. So the PostgreSQL door reads what a
 * client says first and lets in only the class's login to the class's database (which the server
 * then asks for its password, {@link ClassHba}); any other is turned away with PostgreSQL's own
 * error. It declines TLS. The Redis door passes everything: the embedded Redis asks everyone for a
 * password, and the class's user may touch only the class's keys.
 */
final class ClassDoor implements AutoCloseable {

    /** PostgreSQL's codes in a client's first message. */
    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final int LONGEST_STARTUP = 10_000;
    private static final int BUFFER = 16 * 1024;
    /** How long a client may take to say who it is: one that says nothing holds no thread for long. */
    private static final int STARTUP_MILLIS = 10_000;
    /** The most connections through a door at once: forty participants' few each, and room to spare. */
    private static final int MOST_CONNECTIONS = 600;

    private final ServerSocket listener;
    private final InetSocketAddress server;
    /** The login and database the PostgreSQL door lets in; null for a door that passes everything. */
    private final String onlyLogin;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private ClassDoor(ServerSocket listener, InetSocketAddress server, String onlyLogin) {
        this.listener = listener;
        this.server = server;
        this.onlyLogin = onlyLogin;
    }

    /** A door on {@code address} to the PostgreSQL at {@code server}, for login and database {@code login} only. */
    static ClassDoor postgres(InetAddress address, InetSocketAddress server, String login) throws IOException {
        return open(address, server, login);
    }

    /** A door on {@code address} to the Redis at {@code server}. */
    static ClassDoor redis(InetAddress address, InetSocketAddress server) throws IOException {
        return open(address, server, null);
    }

    private static ClassDoor open(InetAddress address, InetSocketAddress server, String login) throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.bind(new InetSocketAddress(address, 0), 200);
        ClassDoor door = new ClassDoor(listener, server, login);
        Background.threads("class-door").newThread(door::accept).start();
        return door;
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (open.size() >= MOST_CONNECTIONS) {
                try {
                    client.close();
                } catch (IOException e) {
                    // Turned away.
                }
                continue;
            }
            open.add(client);
            if (closed) {
                // Closed meanwhile: the connection goes with the door.
                closeQuietly(client);
                continue;
            }
            Background.threads("class-door-in").newThread(() -> pass(client)).start();
        }
    }

    private void pass(Socket client) {
        Socket upstream = new Socket();
        try (client; upstream) {
            client.setTcpNoDelay(true);
            client.setSoTimeout(STARTUP_MILLIS);
            byte[] first = onlyLogin == null ? new byte[0] : startup(client);
            if (first == null) {
                return;
            }
            client.setSoTimeout(0);
            upstream.connect(server, 5_000);
            upstream.setTcpNoDelay(true);
            open.add(upstream);
            upstream.getOutputStream().write(first);
            Thread back = Background.threads("class-door-out").newThread(() -> pump(upstream, client));
            back.start();
            pump(client, upstream);
            back.join(5_000);
        } catch (IOException | InterruptedException e) {
            // The connection ended: both sides are closed.
        } finally {
            open.remove(client);
            open.remove(upstream);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing.
        }
    }

    /**
     * Reads the client's first message, declining TLS and GSS encryption: the startup message to
     * pass on when it names the class's login and database, a cancel request as it is, else null
     * (the client was told why).
     */
    private byte[] startup(Socket client) throws IOException {
        DataInputStream in = new DataInputStream(client.getInputStream());
        OutputStream out = client.getOutputStream();
        while (true) {
            int length = in.readInt();
            if (length < 8 || length > LONGEST_STARTUP) {
                return null;
            }
            byte[] body = new byte[length - 4];
            in.readFully(body);
            int code = ByteBuffer.wrap(body).getInt();
            if (code == SSL_REQUEST || code == GSS_REQUEST) {
                out.write('N');
                continue;
            }
            byte[] whole = ByteBuffer.allocate(length).putInt(length).put(body).array();
            if (code == CANCEL_REQUEST) {
                return whole;
            }
            Map<String, String> said = parameters(body);
            if (onlyLogin.equals(said.get("user")) && onlyLogin.equals(said.get("database"))
                    && !said.containsKey("replication")) {
                return whole;
            }
            refuse(out, "this address lets in only the class's own login to the class's database");
            return null;
        }
    }

    private static Map<String, String> parameters(byte[] body) {
        Map<String, String> said = new HashMap<>();
        String[] parts = new String(body, 4, body.length - 4, StandardCharsets.UTF_8).split("\0");
        for (int i = 0; i + 1 < parts.length; i += 2) {
            said.put(parts[i], parts[i + 1]);
        }
        return said;
    }

    /** PostgreSQL's ErrorResponse: FATAL, invalid authorization, {@code message}. */
    private static void refuse(OutputStream out, String message) throws IOException {
        byte[] fields = ("SFATAL\0VFATAL\0C28000\0M" + message + "\0\0").getBytes(StandardCharsets.UTF_8);
        out.write(ByteBuffer.allocate(5 + fields.length).put((byte) 'E').putInt(4 + fields.length).put(fields).array());
        out.flush();
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        } catch (SocketException e) {
            // Closed from the other side or by the door.
        } catch (IOException e) {
            // The same.
        } finally {
            try {
                to.shutdownOutput();
            } catch (IOException e) {
                // Gone already.
            }
        }
    }

    /** Closes the door and every connection through it. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Closing.
        }
        for (Socket socket : open) {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing.
            }
        }
    }
}
