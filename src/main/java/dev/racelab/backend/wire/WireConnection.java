package dev.racelab.backend.wire;

import dev.racelab.backend.PgAddress;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * A PostgreSQL session spoken to directly in the frontend/backend protocol (version 3): the
 * startup and login (trust, password, MD5, SCRAM-SHA-256; TLS as {@code sslmode} asks), simple
 * queries, a prepared statement for RaceLab's own repeated question, cancel requests.
 *
 * <p><b>Why not JDBC.</b> PostgreSQL's isolation tests compare what the server sent, printed as
 * libpq prints it, and the session environment decides what the server sends: PostgreSQL's test
 * driver fixes {@code DateStyle = 'Postgres, MDY'}, which pgjdbc refuses (it insists on ISO and
 * rewrites values). A step may be several statements sent as one Query, whose results, notices
 * and errors come back in order; JDBC folds them into its own model and drops some. This client
 * returns every value as the server's text and keeps the order of everything, so a transcript
 * prints exactly what the server said.
 *
 * <p><b>libpq's timing, on purpose.</b> Reading follows libpq's asynchronous rules
 * ({@code PQsendQuery}, {@code PQisBusy}, {@code PQgetResult}), because isolationtester's output
 * depends on them: input is parsed only when the caller asks; once a result is complete, parsing
 * stops at the next message that is not a notice or a notification until the caller takes the
 * result; notices are handed to the {@link #onNotice listener} the moment they are parsed. So a
 * notice prints before or after a step's line exactly where isolationtester prints it.
 *
 * <p><b>Bounds.</b> Connecting and logging in are bounded by the timeout given to {@link #open};
 * every blocking read by the bound its caller gives. Not thread-safe: one thread uses a
 * connection; only {@link #cancel} and {@link #close} may come from another.
 */
public final class WireConnection implements AutoCloseable {

    private static final int PROTOCOL_3_0 = 196_608;
    private static final int SSL_REQUEST = 80_877_103;
    private static final int CANCEL_REQUEST = 80_877_102;
    /** What libpq says when the server closes the connection under a query. */
    static final String CLOSED_UNEXPECTEDLY = "server closed the connection unexpectedly\n"
            + "\tThis probably means the server terminated abnormally\n"
            + "\tbefore or while processing the request.\n";

    /** libpq's {@code PGAsyncStatusType}, the states this client passes through. */
    private enum Async {
        /** Nothing under way: the last query's ReadyForQuery has come. */
        IDLE,
        /** A query is under way and no result is waiting to be taken. */
        BUSY,
        /** A result is complete and waits in {@link #ready}: parsing holds off until it is taken. */
        READY
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String host;
    private final int port;
    private final Map<String, String> parameters = new HashMap<>();
    private final Deque<Notification> notifications = new ArrayDeque<>();
    private Consumer<ServerMessage> onNotice = notice -> { };

    private byte[] buffer = new byte[16 * 1024];
    private int start;
    private int end;
    private Async async = Async.IDLE;
    private int pid;
    private int secret;
    private char transaction = 'I';
    /** The result being built from a RowDescription and DataRows, until its CommandComplete. */
    private List<String> columns;
    private List<List<String>> rows;
    private WireResult ready;
    /** The server closed the connection, or it broke. */
    private boolean broken;
    private boolean lossReported;
    private volatile boolean closed;

    private WireConnection(Socket socket, InputStream in, OutputStream out, String host, int port) {
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.host = host;
        this.port = port;
    }

    /**
     * Connects and logs in to {@code database} on the server at {@code address} (its host, port,
     * user, password and {@code sslmode}), with {@code settings} as the session's startup
     * parameters ({@code application_name}, {@code DateStyle}, any setting a user may change).
     *
     * @param within bounds the connect and the whole login
     * @throws WireException naming what failed; {@link WireException#sqlState()} is the server's
     *                       code when it refused (a wrong password: 28P01; no such database: 3D000)
     */
    public static WireConnection open(PgAddress address, String database, Map<String, String> settings,
                                      Duration within) throws WireException {
        Properties props = address.properties();
        String sslmode = props.getProperty("sslmode", "prefer");
        long deadline = System.nanoTime() + within.toNanos();
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(new InetSocketAddress(address.host(), address.port()), millisLeft(deadline));
            socket.setSoTimeout(millisLeft(deadline));
            Socket channel = socket;
            if (!sslmode.equals("disable")) {
                channel = negotiateTls(socket, address, sslmode, props.getProperty("sslrootcert"));
            }
            WireConnection c = new WireConnection(channel, channel.getInputStream(), channel.getOutputStream(),
                    address.host(), address.port());
            try {
                Map<String, String> startup = new LinkedHashMap<>();
                startup.put("user", address.user());
                startup.put("database", database);
                startup.put("client_encoding", "UTF8");
                startup.putAll(settings);
                c.login(startup, address.user(), props.getProperty("password"), deadline);
                return c;
            } catch (WireException | RuntimeException e) {
                c.close();
                throw e;
            }
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new WireException("no answer from " + address.host() + ":" + address.port() + " within "
                    + within.toSeconds() + " s while logging in");
        } catch (WireException e) {
            closeQuietly(socket);
            throw e;
        } catch (IOException e) {
            closeQuietly(socket);
            throw new WireException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    private static int millisLeft(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException();
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** libpq's {@code sslmode}: ask for TLS unless disabled; insist on it from {@code require} up. */
    private static Socket negotiateTls(Socket socket, PgAddress address, String sslmode, String rootCert)
            throws IOException {
        DataOutputStream request = new DataOutputStream(socket.getOutputStream());
        request.writeInt(8);
        request.writeInt(SSL_REQUEST);
        request.flush();
        int answer = socket.getInputStream().read();
        if (answer != 'S') {
            if (answer == 'N' && (sslmode.equals("allow") || sslmode.equals("prefer"))) {
                return socket;
            }
            throw new WireException("PostgreSQL at " + address.host() + ":" + address.port()
                    + (answer == 'N' ? " does not offer TLS, and sslmode=" + sslmode + " requires it"
                    : " answered the TLS request with something else"));
        }
        try {
            boolean verify = sslmode.equals("verify-ca") || sslmode.equals("verify-full");
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, verify ? TrustStores.managers(rootCert) : new TrustManager[] {new TrustAnyone()}, null);
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, address.host(),
                    address.port(), true);
            if (sslmode.equals("verify-full")) {
                SSLParameters params = tls.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(params);
            }
            tls.setSoTimeout(socket.getSoTimeout());
            tls.startHandshake();
            return tls;
        } catch (GeneralSecurityException e) {
            throw new WireException("TLS with " + address.host() + ":" + address.port() + " failed: " + e.getMessage(),
                    e);
        }
    }

    /** {@code require} (and {@code prefer}) encrypt without checking who answers, as libpq does. */
    private static final class TrustAnyone implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    private void login(Map<String, String> startup, String user, String password, long deadline) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(body);
        data.writeInt(PROTOCOL_3_0);
        for (Map.Entry<String, String> e : startup.entrySet()) {
            data.write(cString(e.getKey()));
            data.write(cString(e.getValue()));
        }
        data.write(0);
        DataOutputStream frame = new DataOutputStream(out);
        frame.writeInt(body.size() + 4);
        body.writeTo(frame);
        frame.flush();

        Scram scram = null;
        while (true) {
            socket.setSoTimeout(millisLeft(deadline));
            Message m = readMessage();
            switch (m.type) {
                case 'R' -> {
                    int kind = m.int32();
                    switch (kind) {
                        case 0 -> {
                        }
                        case 3 -> send('p', cString(requirePassword(password, "a password")));
                        case 5 -> {
                            byte[] salt = m.bytes(4);
                            String inner = md5Hex((requirePassword(password, "an MD5 password") + user)
                                    .getBytes(StandardCharsets.UTF_8));
                            byte[] outer = concat(inner.getBytes(StandardCharsets.US_ASCII), salt);
                            send('p', cString("md5" + md5Hex(outer)));
                        }
                        case 10 -> {
                            List<String> mechanisms = new ArrayList<>();
                            for (String mech = m.cString(); !mech.isEmpty(); mech = m.cString()) {
                                mechanisms.add(mech);
                            }
                            if (!mechanisms.contains(Scram.MECHANISM)) {
                                throw new WireException("the server offers only " + mechanisms
                                        + " for the login, and RaceLab speaks " + Scram.MECHANISM);
                            }
                            scram = Scram.forLogin(requirePassword(password, "a SCRAM-SHA-256 password"));
                            byte[] first = scram.clientFirst().getBytes(StandardCharsets.UTF_8);
                            ByteArrayOutputStream initial = new ByteArrayOutputStream();
                            DataOutputStream d = new DataOutputStream(initial);
                            d.write(cString(Scram.MECHANISM));
                            d.writeInt(first.length);
                            d.write(first);
                            send('p', initial.toByteArray());
                        }
                        case 11 -> send('p', requireScram(scram).clientFinal(m.rest()).getBytes(StandardCharsets.UTF_8));
                        case 12 -> requireScram(scram).verifyServerFinal(m.rest());
                        default -> throw new WireException("the server asks for a kind of login RaceLab does not "
                                + "speak (authentication request " + kind + "): use password, md5 or scram-sha-256");
                    }
                }
                case 'S' -> parameters.put(m.cString(), m.cString());
                case 'K' -> {
                    pid = m.int32();
                    secret = m.int32();
                }
                case 'N' -> {
                }
                case 'E' -> {
                    ServerMessage error = m.serverMessage();
                    throw new WireException(error.message(), error, null);
                }
                case 'v' -> {
                }
                case 'Z' -> {
                    transaction = (char) m.byte1();
                    return;
                }
                default -> throw new WireException("the server sent message '" + m.type + "' during the login");
            }
        }
    }

    private static String requirePassword(String password, String what) throws WireException {
        if (password == null) {
            throw new WireException("the server asks for " + what + " and the address gives none");
        }
        return password;
    }

    private static Scram requireScram(Scram scram) throws WireException {
        if (scram == null) {
            throw new WireException("the server continued a SCRAM login that had not begun");
        }
        return scram;
    }

    // ---- what the session is ----

    /** The server process serving this session, as {@code pg_backend_pid()} gives it. */
    public int pid() {
        return pid;
    }

    /** A setting the server reported (ParameterStatus): {@code server_version}, {@code is_superuser}… */
    public String parameter(String name) {
        return parameters.get(name);
    }

    /** The transaction status of the last ReadyForQuery: I idle, T in a transaction, E in a failed one. */
    public char transactionStatus() {
        return transaction;
    }

    /** Where notices go, on the thread that reads, the moment each is parsed. */
    public void onNotice(Consumer<ServerMessage> listener) {
        this.onNotice = listener;
    }

    public boolean broken() {
        return broken;
    }

    // ---- libpq's asynchronous query interface ----

    /** {@code PQsendQuery}: sends {@code sql} (one or more statements) as one Query message. */
    public void sendQuery(String sql) throws WireException {
        if (broken || closed) {
            throw new WireException("no connection to the server");
        }
        if (async != Async.IDLE) {
            throw new WireException("another command is already in progress");
        }
        try {
            send('Q', cString(sql));
        } catch (IOException e) {
            lost();
            throw new WireException("could not send data to server: " + e.getMessage(), e);
        }
        async = Async.BUSY;
        ready = null;
        columns = null;
    }

    /**
     * {@code PQisBusy}: parses what has arrived and says whether taking a result would still wait.
     */
    public boolean isBusy() throws WireException {
        parseInput();
        return async == Async.BUSY;
    }

    /**
     * Waits at most {@code millis} for something from the server and reads what came (select()
     * and {@code PQconsumeInput} in one). Parses nothing.
     *
     * @return whether anything came (or the connection ended)
     */
    public boolean awaitInput(int millis) throws WireException {
        if (broken) {
            return true;
        }
        try {
            if (in.available() > 0) {
                return fill(in.available()) != 0;
            }
            socket.setSoTimeout(Math.max(1, millis));
            return fill(buffer.length) != 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            lost();
            return true;
        }
    }

    /** {@code PQconsumeInput}: reads whatever has arrived, without waiting. */
    public void consumeInput() {
        if (broken) {
            return;
        }
        try {
            int available = in.available();
            if (available > 0) {
                fill(available);
            }
        } catch (IOException e) {
            lost();
        }
    }

    /**
     * {@code PQgetResult}: the next result of the query under way, waiting for it at most {@code
     * bound}; null once the query is over (its ReadyForQuery came, or the connection ended after
     * its last result).
     *
     * @throws WireException.Timeout if nothing came within {@code bound}
     */
    public WireResult getResult(Duration bound) throws WireException {
        parseInput();
        long deadline = System.nanoTime() + bound.toNanos();
        while (async == Async.BUSY) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new WireException.Timeout("no answer from the server within " + bound.toSeconds() + " s");
            }
            awaitInput((int) Math.min(1_000, Math.max(1, left / 1_000_000)));
            parseInput();
        }
        if (async == Async.IDLE) {
            return null;
        }
        WireResult result = ready;
        ready = null;
        // libpq goes on parsing after a result is taken; a connection that ends before the
        // query's ReadyForQuery then gives one more result saying so.
        async = Async.BUSY;
        return result;
    }

    /**
     * {@code PQexec}: sends {@code sql}, waits for all its results and returns the last (libpq's
     * rule: an error stops the statements after it, so the error is the last).
     */
    public WireResult exec(String sql, Duration bound) throws WireException {
        while (getResult(bound) != null) {
            // a result nobody took: libpq drops it too
        }
        sendQuery(sql);
        WireResult last = null;
        for (WireResult r = getResult(bound); r != null; r = getResult(bound)) {
            last = r;
        }
        return last;
    }

    /** {@code PQnotifies}: the next NOTIFY received and not yet taken, or null. */
    public Notification nextNotification() throws WireException {
        parseInput();
        return notifications.pollFirst();
    }

    // ---- a prepared statement, for a question asked every few milliseconds ----

    /** Prepares {@code sql} as the named statement {@code name}, parameters typed by the server. */
    public void prepare(String name, String sql, Duration bound) throws WireException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(cString(name));
        body.writeBytes(cString(sql));
        body.writeBytes(new byte[] {0, 0});
        try {
            send('P', body.toByteArray());
            send('S', new byte[0]);
        } catch (IOException e) {
            lost();
            throw new WireException("could not send data to server: " + e.getMessage(), e);
        }
        finishExtended(bound);
    }

    /** Runs the prepared statement {@code name} with text parameters and returns its one result. */
    public WireResult execPrepared(String name, List<String> params, Duration bound) throws WireException {
        ByteArrayOutputStream bind = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(bind);
        try {
            d.write(cString(""));
            d.write(cString(name));
            d.writeShort(0);
            d.writeShort(params.size());
            for (String p : params) {
                if (p == null) {
                    d.writeInt(-1);
                } else {
                    byte[] value = p.getBytes(StandardCharsets.UTF_8);
                    d.writeInt(value.length);
                    d.write(value);
                }
            }
            d.writeShort(0);
            send('B', bind.toByteArray());
            send('D', new byte[] {'P', 0});
            send('E', concat(cString(""), new byte[] {0, 0, 0, 0}));
            send('S', new byte[0]);
        } catch (IOException e) {
            lost();
            throw new WireException("could not send data to server: " + e.getMessage(), e);
        }
        return finishExtended(bound);
    }

    private WireResult finishExtended(Duration bound) throws WireException {
        async = Async.BUSY;
        columns = null;
        WireResult last = null;
        for (WireResult r = getResult(bound); r != null; r = getResult(bound)) {
            last = r;
        }
        if (last != null && last.failed()) {
            throw new WireException(last.error() != null ? last.error().message() : last.text(), last.error(), null);
        }
        return last;
    }

    // ---- cancel and close ----

    /**
     * Asks the server, on a connection of its own, to cancel what this session runs now (a
     * CancelRequest with the session's key). Bounded by {@code bound}; failures are swallowed: a
     * cancel is a request, and the server may have finished already.
     *
     * @return whether the request was delivered
     */
    public boolean cancel(Duration bound) {
        try (Socket s = new Socket()) {
            int millis = (int) Math.max(1, bound.toMillis());
            s.connect(new InetSocketAddress(host, port), millis);
            s.setSoTimeout(millis);
            DataOutputStream d = new DataOutputStream(s.getOutputStream());
            d.writeInt(16);
            d.writeInt(CANCEL_REQUEST);
            d.writeInt(pid);
            d.writeInt(secret);
            d.flush();
            // The server closes the connection once it has read the request.
            while (s.getInputStream().read() >= 0) {
                // nothing is ever sent back
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Says goodbye (Terminate) and closes the socket; safe from any thread, more than once. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!broken) {
                socket.setSoTimeout(1_000);
                send('X', new byte[0]);
            }
        } catch (IOException e) {
            // The connection is going anyway.
        } finally {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }

    // ---- parsing, libpq's way ----

    /**
     * libpq's {@code pqParseInput3}: handles every complete message that has arrived, except that
     * once a result is complete only notices and notifications are handled until it is taken.
     */
    private void parseInput() throws WireException {
        while (end - start >= 5) {
            char type = (char) (buffer[start] & 0xff);
            int length = readInt(start + 1);
            if (length < 4) {
                lost();
                throw new WireException("the server sent a message with an impossible length");
            }
            if (end - start < 1 + length) {
                ensureCapacity(1 + length);
                return;
            }
            Message m = new Message(type, buffer, start + 5, start + 1 + length);
            if (type == 'A') {
                notifications.addLast(new Notification(m.int32(), m.cString(), m.cString()));
            } else if (type == 'N') {
                onNotice.accept(m.serverMessage());
            } else if (async == Async.READY) {
                return;
            } else if (async == Async.IDLE) {
                if (type == 'S') {
                    parameters.put(m.cString(), m.cString());
                } else if (type == 'E') {
                    // An error while nothing runs (the session is being terminated): libpq
                    // passes it on as a notice.
                    onNotice.accept(m.serverMessage());
                }
            } else {
                handleBusy(m);
            }
            start += 1 + length;
        }
        if (broken && async == Async.BUSY) {
            reportLoss();
        }
    }

    private void handleBusy(Message m) throws WireException {
        switch (m.type) {
            case 'T' -> {
                int count = m.int16();
                columns = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    columns.add(m.cString());
                    m.skip(18);
                }
                rows = new ArrayList<>();
            }
            case 'D' -> {
                int count = m.int16();
                List<String> row = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    int length = m.int32();
                    row.add(length < 0 ? null : new String(m.bytes(length), StandardCharsets.UTF_8));
                }
                if (columns == null) {
                    columns = new ArrayList<>();
                    rows = new ArrayList<>();
                }
                rows.add(row);
            }
            case 'C' -> {
                String tag = m.cString();
                ready = columns == null ? WireResult.command(tag)
                        : new WireResult(WireResult.Status.TUPLES_OK, columns, rows, tag, null, null);
                columns = null;
                rows = null;
                async = Async.READY;
            }
            case 'I' -> {
                ready = new WireResult(WireResult.Status.EMPTY_QUERY, List.of(), List.of(), null, null, null);
                async = Async.READY;
            }
            case 'E' -> {
                ready = WireResult.failed(m.serverMessage());
                columns = null;
                rows = null;
                async = Async.READY;
            }
            case 'Z' -> {
                transaction = (char) m.byte1();
                async = Async.IDLE;
            }
            case 'S' -> parameters.put(m.cString(), m.cString());
            case 'G' -> {
                // COPY … FROM STDIN: a spec has no data to give.
                try {
                    send('f', cString("RaceLab sends no COPY data"));
                } catch (IOException e) {
                    lost();
                }
                ready = new WireResult(WireResult.Status.COPY_IN, List.of(), List.of(), null, null, null);
                async = Async.READY;
            }
            case 'H' -> {
                ready = new WireResult(WireResult.Status.COPY_OUT, List.of(), List.of(), null, null, null);
                async = Async.READY;
            }
            case '1', '2', '3', 'n', 't', 's', 'd', 'c', 'K' -> {
                // Extended-protocol acknowledgements and COPY data: nothing to keep.
            }
            default -> {
                lost();
                throw new WireException("the server sent message '" + m.type + "', which RaceLab does not expect");
            }
        }
    }

    /** The connection ended: the query under way gets libpq's "server closed" result once. */
    private void lost() {
        broken = true;
        closeQuietly(socket);
    }

    private void reportLoss() {
        if (!lossReported) {
            lossReported = true;
            ready = WireResult.lost(CLOSED_UNEXPECTEDLY);
            async = Async.READY;
        } else {
            async = Async.IDLE;
        }
    }

    /** Reads at most {@code max} bytes (blocking as the socket's timeout says) into the buffer. */
    private int fill(int max) throws IOException {
        if (start > 0 && start == end) {
            start = 0;
            end = 0;
        }
        ensureCapacity(Math.min(max, 64 * 1024) + (end - start));
        int n = in.read(buffer, end, Math.min(max, buffer.length - end));
        if (n < 0) {
            lost();
            return -1;
        }
        end += n;
        return n;
    }

    /** Makes room for {@code needed} bytes from {@code start}, compacting or growing the buffer. */
    private void ensureCapacity(int needed) {
        if (buffer.length - start >= needed) {
            return;
        }
        byte[] target = needed > buffer.length ? new byte[Math.max(needed, buffer.length * 2)] : buffer;
        System.arraycopy(buffer, start, target, 0, end - start);
        end -= start;
        start = 0;
        buffer = target;
    }

    private int readInt(int at) {
        return ((buffer[at] & 0xff) << 24) | ((buffer[at + 1] & 0xff) << 16) | ((buffer[at + 2] & 0xff) << 8)
                | (buffer[at + 3] & 0xff);
    }

    /** Reads one whole message, blocking (during the login only). */
    private Message readMessage() throws IOException {
        while (end - start < 5 || end - start < 1 + readInt(start + 1)) {
            if (end - start >= 5) {
                ensureCapacity(1 + readInt(start + 1));
            }
            if (fill(buffer.length) < 0) {
                throw new WireException("the server closed the connection during the login");
            }
        }
        int length = readInt(start + 1);
        Message m = new Message((char) (buffer[start] & 0xff), java.util.Arrays.copyOfRange(buffer, start + 5,
                start + 1 + length), 0, length - 4);
        start += 1 + length;
        return m;
    }

    private void send(char type, byte[] body) throws IOException {
        byte[] frame = new byte[5 + body.length];
        frame[0] = (byte) type;
        int length = body.length + 4;
        frame[1] = (byte) (length >>> 24);
        frame[2] = (byte) (length >>> 16);
        frame[3] = (byte) (length >>> 8);
        frame[4] = (byte) length;
        System.arraycopy(body, 0, frame, 5, body.length);
        out.write(frame);
        out.flush();
    }

    private static byte[] cString(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, result, 0, bytes.length);
        return result;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] result = new byte[a.length + b.length];
        System.arraycopy(a, 0, result, 0, a.length);
        System.arraycopy(b, 0, result, a.length, b.length);
        return result;
    }

    static String md5Hex(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
    }

    /** One message's body, read from its start. */
    private static final class Message {
        final char type;
        private final byte[] data;
        private int pos;
        private final int limit;

        Message(char type, byte[] data, int from, int limit) {
            this.type = type;
            this.data = data;
            this.pos = from;
            this.limit = limit;
        }

        int byte1() {
            return data[pos++] & 0xff;
        }

        int int16() {
            int v = ((data[pos] & 0xff) << 8) | (data[pos + 1] & 0xff);
            pos += 2;
            return v;
        }

        int int32() {
            int v = ((data[pos] & 0xff) << 24) | ((data[pos + 1] & 0xff) << 16) | ((data[pos + 2] & 0xff) << 8)
                    | (data[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        byte[] bytes(int n) {
            byte[] b = java.util.Arrays.copyOfRange(data, pos, pos + n);
            pos += n;
            return b;
        }

        void skip(int n) {
            pos += n;
        }

        String cString() {
            int zero = pos;
            while (zero < limit && data[zero] != 0) {
                zero++;
            }
            String s = new String(data, pos, zero - pos, StandardCharsets.UTF_8);
            pos = Math.min(limit, zero + 1);
            return s;
        }

        String rest() {
            String s = new String(data, pos, limit - pos, StandardCharsets.UTF_8);
            pos = limit;
            return s;
        }

        ServerMessage serverMessage() {
            Map<Character, String> fields = new HashMap<>();
            while (pos < limit && data[pos] != 0) {
                char code = (char) data[pos++];
                fields.put(code, cString());
            }
            return new ServerMessage(fields);
        }
    }
}
