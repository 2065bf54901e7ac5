package dev.racelab.classroom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingWriter;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A class on one machine, against RaceLab's embedded servers: the host here, each participant a
 * RaceLab of its own (a separate process, as on a student's laptop). The host's verdict counts
 * every participant's increments and names whose were lost; the fix is SAFE; a participant killed
 * mid-run is shown as having left while the run goes on; a host killed ends its participants' run
 * with a message; after the class nothing of it is left on the servers.
 */
@Tag("it")
class ClassRunTest {

    @TempDir
    Path home;

    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    private Child join(JoinLine line, String name, int workers) throws Exception {
        return children.start(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher",
                "class", "join", line.text(), "--name", name, "--workers", String.valueOf(workers), "--headless"),
                Map.of("RACELAB_HOME", home.resolve(name).toString()));
    }

    private static ClassHost host(Path home) throws Exception {
        return ClassHost.open(TestServers.topologies(), home, line -> { });
    }

    @Test
    void theHostCountsEveryParticipantsIncrementsAndNamesTheLostOnes() throws Exception {
        Path file = home.resolve("class.racelab");
        long beaWrites;
        int beaLane;
        List<Child> allMembers = new ArrayList<>();
        List<String> verdicts;
        try (ClassHost host = host(home)) {
            List<Child> members = List.of(join(host.joinLine(), "ada", 1), join(host.joinLine(), "bea", 2),
                    join(host.joinLine(), "cy", 1));
            var seats = host.awaitJoins(3, Duration.ofSeconds(120));
            var lab = new Labs(TestServers.topologies()).named("counter");
            ClassHost.Hosted broken = host.run("counter", lab.defaults().withOps(15), seats);
            Outcome outcome = broken.record().outcome();
            assertEquals(60L, outcome.metrics().get("committedIncrements"), outcome.toString());
            long lost = outcome.metrics().get("lostIncrements").longValue();
            assertEquals(60 - lost, outcome.metrics().get("finalValue").longValue());
            assertEquals(lost, broken.parts().stream().mapToLong(Ledger.Part::lost).sum(), "each lost increment is someone's");
            assertEquals(Map.of("ada", 15L, "bea", 30L, "cy", 15L), broken.parts().stream()
                    .collect(java.util.stream.Collectors.toMap(Ledger.Part::name, Ledger.Part::ops)));
            assertEquals(lost > 0 ? Verdict.RACE : Verdict.SAFE, outcome.verdict());
            assertTrue(outcome.explanation().contains("By participant: ") && outcome.explanation().contains("ada 15 operations"),
                    outcome.explanation());
            List<String> lanes = workers(broken.record());
            assertEquals(java.util.Set.of("ada · client-1", "bea · client-1", "bea · client-2", "cy · client-1"),
                    java.util.Set.copyOf(lanes));
            for (int lane = 1; lane <= 4; lane++) {
                assertTrue(events(broken.record(), lane, dev.racelab.engine.EventKind.WRITE) > 0,
                        "the lane of " + lanes.get(lane - 1) + " shows its writes");
            }
            for (int lane = 1; lane <= 4; lane++) {
                assertEquals(-1, firstBackwards(broken.record(), lane), "the lane of " + lanes.get(lane - 1)
                        + " runs forward in time, its operations' ends where they ended on the participant's machine");
            }
            beaLane = lanes.indexOf("bea · client-2") + 1;
            beaWrites = events(broken.record(), beaLane, dev.racelab.engine.EventKind.WRITE);
            try (RecordingWriter writer = RecordingWriter.create(file)) {
                writer.write(broken.lab(), broken.record());
                writer.commit(1, 0, false);
            }
            // The same participants, for the next run: the fix.
            ClassHost.Hosted fixed = host.run("counter", lab.defaults().withOps(15).withStrategy("atomic-update"), seats);
            assertEquals(Verdict.SAFE, fixed.record().outcome().verdict(), fixed.record().outcome().toString());
            assertEquals(60L, fixed.record().outcome().metrics().get("finalValue"));
            members.forEach(m -> allMembers.add(m));
            verdicts = List.of(outcome.verdict() + ": " + outcome.headline(),
                    Verdict.SAFE + ": " + fixed.record().outcome().headline());
        }
        // The class ended: each participant heard both verdicts, and left.
        for (Child member : allMembers) {
            assertEquals(0, member.await(30), member.err());
            List<String> heard = member.out().lines().filter(l -> l.matches("(SAFE|RACE|ERROR|STUCK|DEADLOCK): .*")).toList();
            assertEquals(verdicts, heard, member.out());
        }
        // With no server: the recording holds every participant's lanes.
        try (Backends none = new Backends(BackendSettings.embedded(), home.resolve("none"), StartupListener.SILENT)) {
            Recording recording = new RecordingReader(new Labs(none)).read(file);
            RunRecord replayed = recording.last();
            assertEquals(java.util.Set.of("ada · client-1", "bea · client-1", "bea · client-2", "cy · client-1"),
                    java.util.Set.copyOf(workers(replayed)));
            assertEquals(beaWrites, events(replayed, beaLane, dev.racelab.engine.EventKind.WRITE), "bea's writes, as they ran");
            assertTrue(replayed.outcome().explanation().contains("By participant"));
        }
        assertNothingLeft();
    }

    @Test
    void aParticipantKilledMidRunIsShownAsLeftAndTheRunGoesOn() throws Exception {
        List<Child> stayed;
        try (ClassHost host = host(home)) {
            Child ada = join(host.joinLine(), "ada", 1);
            Child bea = join(host.joinLine(), "bea", 1);
            Child cy = join(host.joinLine(), "cy", 1);
            var seats = host.awaitJoins(3, Duration.ofSeconds(120));
            var lab = new Labs(TestServers.topologies()).named("counter");
            AtomicReference<Run> live = new AtomicReference<>();
            host.watching(live::set);
            CompletableFuture<ClassHost.Hosted> running = CompletableFuture.supplyAsync(() -> {
                try {
                    return host.run("counter", lab.defaults().withOps(60), seats);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Poll.until("bea's lane shows her work", () -> live.get() != null && eventsOn(live.get(), "bea · client-1") >= 12);
            assertTrue(keysAllExpire(host.code()), "every key of the class expires");
            bea.process().destroyForcibly();
            ClassHost.Hosted hosted = running.get(120, TimeUnit.SECONDS);
            Outcome outcome = hosted.record().outcome();
            assertNotEquals(Verdict.ERROR, outcome.verdict(), outcome.toString());
            Map<String, Ledger.Part> parts = hosted.parts().stream()
                    .collect(java.util.stream.Collectors.toMap(Ledger.Part::name, p -> p));
            Ledger.Part left = parts.get("bea");
            assertTrue(left.ops() < 60 && left.unfinished().size() == 1, left.toString());
            assertTrue(outcome.explanation().contains("bea left with operation " + left.unfinished().get(0)
                    + " unfinished"), outcome.explanation());
            assertEquals(60L, parts.get("ada").ops(), "the run went on for the others");
            assertEquals(60L, parts.get("cy").ops());
            assertEquals(120L + left.ops(), outcome.metrics().get("committedIncrements"));
            stayed = List.of(ada, cy);
        }
        for (Child member : stayed) {
            assertEquals(0, member.await(30), member.err());
        }
        assertNothingLeft();
    }

    @Test
    void aHostThatDisappearsEndsItsParticipantsRunWithAMessage() throws Exception {
        Path hostHome = home.resolve("host");
        Child host = children.start(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher",
                "class", "host", "counter", "--participants", "2", "--ops", "400"),
                Map.of("RACELAB_HOME", hostHome.toString()));
        Poll.until("the host prints its join line", () -> err(host).lines().anyMatch(l -> l.startsWith("join ")));
        JoinLine line = JoinLine.parse(err(host).lines().filter(l -> l.startsWith("join ")).findFirst().orElseThrow()
                .substring("join ".length()));
        Child ada = join(line, "ada", 1);
        Child bea = join(line, "bea", 1);
        Poll.until("the run is under way", () -> err(ada).contains("Go") && err(bea).contains("Go"));
        host.process().destroyForcibly();
        for (Child member : List.of(ada, bea)) {
            assertEquals(1, member.await(30), member.err());
            assertTrue(member.err().contains("the host is gone") || member.err().contains("out of reach"),
                    member.err());
        }
        Poll.until("the host's servers went with it", () -> ProcessHandle.allProcesses().noneMatch(p ->
                p.info().commandLine().map(c -> c.contains(hostHome.toString())).orElse(false)));
    }

    @Test
    void theFencingLabInAClassCountsEveryonesStaleWritesAndTheFencedWriteIsSafe() throws Exception {
        try (ClassHost host = host(home)) {
            List<Child> members = List.of(join(host.joinLine(), "ada", 1), join(host.joinLine(), "bea", 2),
                    join(host.joinLine(), "cy", 1));
            var seats = host.awaitJoins(3, Duration.ofSeconds(120));
            var lab = new Labs(TestServers.topologies()).named("fencing");
            // The lab's preset pause after the check lets a stale write through in nearly every run;
            // a run without one has nothing to name, so the class runs again, three times at most.
            ClassHost.Hosted broken = null;
            for (int run = 0; run < 3 && (broken == null || broken.record().outcome().verdict() != Verdict.RACE); run++) {
                broken = host.run("fencing", lab.defaults().withStrategy("check-then-write").withOps(5), seats);
            }
            Outcome outcome = broken.record().outcome();
            assertEquals(20L, outcome.metrics().get("maxToken"), "a token for each of the class's 20 writes: " + outcome);
            assertEquals(20L, outcome.metrics().get("acceptedWrites").longValue()
                    + outcome.metrics().get("rejectedWrites").longValue(), outcome.toString());
            long stale = outcome.metrics().get("staleWritesApplied").longValue();
            assertEquals(Verdict.RACE, outcome.verdict(), outcome.toString());
            assertTrue(stale > 0, outcome.toString());
            assertEquals(stale, broken.parts().stream().mapToLong(Ledger.Part::lost).sum(),
                    "each stale write lost someone's newer price: " + broken.parts());
            assertEquals(stale, broken.parts().stream().mapToLong(Ledger.Part::overwrote).sum(),
                    "and was someone's: " + broken.parts());
            List<Long> prices = new ArrayList<>();
            for (long seq = 0; seq < broken.record().events().size(); seq++) {
                Event e = broken.record().events().get(seq);
                if (e.kind() == dev.racelab.engine.EventKind.WRITE) {
                    prices.add(e.value());
                }
            }
            assertEquals(prices.size(), java.util.Set.copyOf(prices).size(), "no two writes of the class carry one price: " + prices);
            assertEquals(Map.of("ada", 5L, "bea", 10L, "cy", 5L), broken.parts().stream()
                    .collect(java.util.stream.Collectors.toMap(Ledger.Part::name, Ledger.Part::ops)));
            assertEquals(java.util.Set.of("ada · client-1", "bea · client-1", "bea · client-2", "cy · client-1"),
                    java.util.Set.copyOf(workers(broken.record())));

            ClassHost.Hosted fenced = host.run("fencing", lab.defaults().withStrategy("fenced-cas").withOps(5), seats);
            Outcome safe = fenced.record().outcome();
            assertEquals(Verdict.SAFE, safe.verdict(), safe.toString());
            assertEquals(20L, safe.metrics().get("maxToken"));
            assertEquals(safe.metrics().get("expectedPrice"), safe.metrics().get("finalPrice"),
                    "the price the highest token's holder wrote stands: " + safe);
            assertEquals(0L, fenced.parts().stream().mapToLong(Ledger.Part::lost).sum());
            assertEquals(List.of(true, true, true), members.stream().map(m -> m.process().isAlive()).toList(),
                    "everyone stays for the next run");
        }
    }

    /** The names of a record's worker lanes, in order. */
    private static List<String> workers(RunRecord record) {
        List<String> names = new ArrayList<>();
        for (long seq = 0; seq < record.events().size(); seq++) {
            Event e = record.events().get(seq);
            if (e.kind() == dev.racelab.engine.EventKind.ACTOR && e.value() == Actor.Kind.WORKER.ordinal()) {
                names.add(e.subject());
            }
        }
        return names;
    }

    /** The seq of the first event of lane {@code actor} earlier than the one before it on the lane; -1 if none. */
    private static long firstBackwards(RunRecord record, int actor) {
        long last = Long.MIN_VALUE;
        for (long seq = 0; seq < record.events().size(); seq++) {
            Event e = record.events().get(seq);
            if (e.actor() == actor) {
                if (e.nanos() < last) {
                    return seq;
                }
                last = e.nanos();
            }
        }
        return -1;
    }

    private static long events(RunRecord record, int actor, dev.racelab.engine.EventKind kind) {
        long n = 0;
        for (long seq = 0; seq < record.events().size(); seq++) {
            Event e = record.events().get(seq);
            if (e.actor() == actor && e.kind() == kind) {
                n++;
            }
        }
        return n;
    }

    private static String err(Child child) {
        try {
            return child.err();
        } catch (Exception e) {
            return "";
        }
    }

    private static long eventsOn(Run run, String lane) {
        int actor = run.actors().stream().filter(a -> a.name().equals(lane)).findFirst().map(Actor::id).orElse(-1);
        long n = 0;
        for (long seq = 0; seq < run.recorder().size(); seq++) {
            Event e = run.recorder().get(seq);
            if (e != null && e.actor() == actor) {
                n++;
            }
        }
        return n;
    }

    private static boolean keysAllExpire(ClassCode code) throws Exception {
        try (Jedis admin = TestServers.topologies().redis().open("test-class", 5_000)) {
            var keys = admin.scan("0", new redis.clients.jedis.params.ScanParams().match(code.keyPrefix() + "*")
                    .count(1000)).getResult();
            return !keys.isEmpty() && keys.stream().allMatch(k -> admin.pttl(k) > 0);
        }
    }

    private static void assertNothingLeft() throws Exception {
        try (Connection admin = TestServers.topologies().postgres().control("test-class");
             Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM pg_catalog.pg_roles WHERE rolname LIKE "
                     + "'racelab\\_class\\_%') + (SELECT count(*) FROM pg_catalog.pg_database WHERE datname LIKE "
                     + "'racelab\\_class\\_%')")) {
            rs.next();
            assertEquals(0, rs.getInt(1), "no class login or database is left");
        }
        try (Jedis admin = TestServers.topologies().redis().open("test-class", 5_000)) {
            assertFalse(admin.aclUsers().stream().anyMatch(u -> u.startsWith("racelab-class-")), "no class user is left");
            assertTrue(admin.scan("0", new redis.clients.jedis.params.ScanParams().match("racelab:class:*").count(10_000))
                    .getResult().isEmpty(), "no class key is left");
        }
    }
}
