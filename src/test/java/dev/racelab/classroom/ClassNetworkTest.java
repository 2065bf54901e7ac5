package dev.racelab.classroom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.racelab.labs.Labs;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A class on a network, as in a classroom: three participants, each in a network namespace of its
 * own joined to the host's by a virtual link on a bridge, with an address of its own from the range
 * set aside for benchmarks (198.18.0.0/15) and no route anywhere else. They reach the host's
 * embedded servers only through the class's doors on the host's address there. The test makes the
 * namespaces, the links and the bridge, and removes them. It needs root and iproute2 (CI has both).
 */
@Tag("it")
class ClassNetworkTest {

    private static final String HOST_ADDRESS = "198.18.0.1";

    @TempDir
    Path home;

    @Test
    void participantsOnTheirOwnAddressesRunAClassAgainstTheHostsEmbeddedServers() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")) && (Files.isExecutable(Path.of("/usr/sbin/ip"))
                || Files.isExecutable(Path.of("/sbin/ip"))), "needs root and iproute2 to make network namespaces");
        String tag = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 4);
        String bridge = "rlc" + tag;
        List<String> namespaces = new ArrayList<>();
        try (Children children = new Children()) {
            ip("link", "add", bridge, "type", "bridge");
            ip("addr", "add", HOST_ADDRESS + "/24", "dev", bridge);
            ip("link", "set", bridge, "up");
            for (int i = 1; i <= 3; i++) {
                String ns = "racelab-class-" + tag + "-" + i;
                String outside = "rl" + tag + i + "a";
                String inside = "rl" + tag + i + "b";
                ip("netns", "add", ns);
                namespaces.add(ns);
                ip("link", "add", outside, "type", "veth", "peer", "name", inside);
                ip("link", "set", outside, "master", bridge);
                ip("link", "set", outside, "up");
                ip("link", "set", inside, "netns", ns);
                ip("-n", ns, "addr", "add", "198.18.0." + (i + 1) + "/24", "dev", inside);
                ip("-n", ns, "link", "set", inside, "up");
                ip("-n", ns, "link", "set", "lo", "up");
            }
            List<Child> members = new ArrayList<>();
            try (ClassHost host = ClassHost.open(TestServers.topologies(), home, InetAddress.getByName(HOST_ADDRESS),
                    line -> { })) {
                JoinLine line = host.joinLine();
                assertEquals(HOST_ADDRESS, line.pgHost());
                for (int i = 1; i <= 3; i++) {
                    members.add(children.start(List.of("ip", "netns", "exec", namespaces.get(i - 1),
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                            "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher",
                            "class", "join", line.text(), "--name", "desk" + i, "--headless"),
                            Map.of("RACELAB_HOME", home.resolve("desk" + i).toString())));
                }
                var seats = host.awaitJoins(3, Duration.ofSeconds(120));
                var lab = new Labs(TestServers.topologies()).named("counter");
                ClassHost.Hosted hosted = host.run("counter", lab.defaults().withOps(10), seats);
                assertEquals(30L, hosted.record().outcome().metrics().get("committedIncrements"),
                        hosted.record().outcome().toString());
                assertEquals(Map.of("desk1", 10L, "desk2", 10L, "desk3", 10L), hosted.parts().stream()
                        .collect(Collectors.toMap(Ledger.Part::name, Ledger.Part::ops)));
            }
            // The class ended: each participant heard the verdict and left.
            for (Child member : members) {
                assertEquals(0, member.await(30), member.err());
            }
        } finally {
            // Each link's outside end first: deleting it deletes its pair at once, where a namespace's
            // links go with it only when the kernel gets round to it.
            for (int i = 1; i <= namespaces.size(); i++) {
                ipQuietly("link", "del", "rl" + tag + i + "a");
            }
            for (String ns : namespaces) {
                ipQuietly("netns", "del", ns);
            }
            ipQuietly("link", "del", bridge);
        }
        Poll.until("the namespaces are gone", () -> noneNamed(tag, "netns", "list"));
        Poll.until("the links and the bridge are gone", () -> noneNamed(tag, "link", "show"));
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + said);
        }
    }

    private static void ipQuietly(String... args) {
        try {
            ip(args);
        } catch (IOException | InterruptedException | RuntimeException e) {
            // Gone already.
        }
    }

    /** Whether {@code ip ARGS} lists nothing named with {@code tag} (false while it cannot be asked). */
    private static boolean noneNamed(String tag, String... args) {
        try {
            return ipOut(args).lines().noneMatch(l -> l.contains(tag));
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String ipOut(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        p.waitFor(10, TimeUnit.SECONDS);
        return said;
    }
}
