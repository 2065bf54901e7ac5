package dev.racelab.backend.relay;

import dev.racelab.backend.RedisAddress;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The relay on a real Redis, standing where a replica's stream from its primary would pass: held,
 * the server's replies stay in the relay, counted; released, they arrive, in order; closed, the
 * connection is cut and nothing listens on its port any more.
 */
@Tag("lab")
class StreamRelayTest {

    private static final byte[] ECHO_A = "*2\r\n$4\r\nECHO\r\n$1\r\na\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ECHO_B = "*2\r\n$4\r\nECHO\r\n$1\r\nb\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_A = "$1\r\na\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_B = "$1\r\nb\r\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * Logs {@code client} in, through the relay, as the server asks (RaceLab's embedded Redis asks
     * for its password): {@code AUTH} and its {@code +OK}.
     */
    private static void logIn(Socket client) throws Exception {
        RedisAddress address = TestServers.redis().address();
        if (!address.hasPassword()) {
            return;
        }
        String url = address.secretUrl();
        String info = java.net.URLDecoder.decode(url.substring(url.indexOf("//") + 2, url.lastIndexOf('@')),
                StandardCharsets.UTF_8);
        String password = info.substring(info.indexOf(':') + 1);
        String auth = "*2\r\n$4\r\nAUTH\r\n$" + password.length() + "\r\n" + password + "\r\n";
        client.getOutputStream().write(auth.getBytes(StandardCharsets.US_ASCII));
        byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(ok, client.getInputStream().readNBytes(ok.length), "logged in");
    }

    private static InetSocketAddress redis() {
        RedisAddress address = TestServers.redis().address();
        return new InetSocketAddress(address.host(), address.port());
    }

    @Test
    void whatTheServerSendsWhileHeldArrivesOnlyOnceReleasedAndInOrder() throws Exception {
        try (StreamRelay relay = StreamRelay.open("test", redis(), Thread::new);
             Socket client = new Socket(InetAddress.getLoopbackAddress(), relay.port())) {
            client.setSoTimeout(10_000);
            logIn(client);
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();
            out.write(ECHO_A);
            assertArrayEquals(REPLY_A, in.readNBytes(REPLY_A.length), "passes through while not held");

            relay.hold();
            out.write(ECHO_B);
            out.write(ECHO_A);
            Poll.until("the relay holds both replies", () -> relay.heldBytes() == REPLY_A.length + REPLY_B.length);
            assertEquals(0, in.available(), "nothing reached the client while held");

            relay.release();
            assertArrayEquals(REPLY_B, in.readNBytes(REPLY_B.length), "the first held reply first");
            assertArrayEquals(REPLY_A, in.readNBytes(REPLY_A.length));
            assertEquals(0, relay.heldBytes());

            out.write(ECHO_B);
            assertArrayEquals(REPLY_B, in.readNBytes(REPLY_B.length), "passes through again once released");
        }
    }

    @Test
    void closingCutsTheConnectionAndFreesThePort() throws Exception {
        StreamRelay relay = StreamRelay.open("test", redis(), Thread::new);
        int port = relay.port();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            client.setSoTimeout(10_000);
            logIn(client);
            client.getOutputStream().write(ECHO_A);
            assertArrayEquals(REPLY_A, client.getInputStream().readNBytes(REPLY_A.length));
            relay.hold();
            client.getOutputStream().write(ECHO_B);
            Poll.until("the relay holds the reply", () -> relay.heldBytes() == REPLY_B.length);
            relay.close();
            assertEquals(-1, readOrEnd(client.getInputStream()), "cut, and what was held is dropped");
            assertEquals(0, relay.connections());
        }
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
    }

    /** The next byte, or -1 at the end of the stream; a reset counts as an end. */
    private static int readOrEnd(InputStream in) {
        try {
            return in.read();
        } catch (IOException e) {
            return -1;
        }
    }
}
