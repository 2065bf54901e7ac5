package dev.racelab.isolation.run;

import dev.racelab.backend.Postgres;
import dev.racelab.isolation.PostgresSpecs;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecReader;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's runner against PostgreSQL's own isolation suite: every spec of {@code
 * isolation_schedule} run on the test server, its transcript compared byte for byte with the
 * expected output (any variant). The specs are those of the server's major version (17: the
 * embedded server; 15: this machine's, through {@code RACELAB_PG_URL}); another version skips.
 */
@Tag("lab")
@Tag("isolation")
// It keeps both cores busy for a while: nothing else of the build (SilentServerTest, which runs
// beside the others and counts on its timing) runs beside it.
@Isolated
class PostgresConformanceTest {

    /** Known not to match these expected files, whatever the client (see ../shared/isolation/README.md). */
    private static final Set<String> KNOWN = Set.of("partition-merge", "partition-split", "intra-grant-inplace",
            "intra-grant-inplace-db");
    private static final SpecRunner.Options OPTIONS = SpecRunner.Options.DEFAULTS.withStepTimeout(
            Duration.ofSeconds(60));
    private static final int PARALLEL = Integer.getInteger("racelab.isolation.parallel", 3);

    private record Outcome(String spec, boolean identical, String difference, long millis) {
    }

    @Test
    void everyScheduledSpecPrintsWhatIsolationtesterPrints() throws Exception {
        Postgres server = TestServers.postgres();
        int major = majorVersion();
        Assumptions.assumeTrue(major == 17 || major == 15, "PostgreSQL " + major + " has no expected outputs here");
        PostgresSpecs specs = PostgresSpecs.forMajor(major);
        List<String> schedule = new ArrayList<>(specs.schedule());
        String only = System.getProperty("racelab.isolation.only");
        if (only != null && !only.isBlank()) {
            schedule.retainAll(List.of(only.split(",")));
        }
        long started = System.nanoTime();
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL, r -> {
            Thread t = new Thread(r, "isolation-conformance-" + done.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (String name : schedule) {
                futures.add(pool.submit(() -> runOne(server, specs, name)));
            }
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get(10, TimeUnit.MINUTES));
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "the spec runners ended");
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        Map<String, Outcome> bySpec = new TreeMap<>();
        outcomes.forEach(o -> bySpec.put(o.spec(), o));
        long identical = outcomes.stream().filter(Outcome::identical).count();
        StringBuilder table = new StringBuilder("PostgreSQL " + major + ": " + identical + " of " + outcomes.size()
                + " identical in " + seconds + " s (" + PARALLEL + " at a time)\n");
        bySpec.values().stream().filter(o -> !o.identical()).forEach(o -> table.append("  differs: ")
                .append(o.spec()).append(KNOWN.contains(o.spec()) ? " (known)" : "").append(" — ")
                .append(o.difference()).append('\n'));
        bySpec.values().stream().sorted((a, b) -> Long.compare(b.millis(), a.millis())).limit(8)
                .forEach(o -> table.append("  slowest: ").append(o.spec()).append(' ').append(o.millis())
                        .append(" ms\n"));
        System.out.print(table);
        List<String> unexpected = bySpec.values().stream().filter(o -> !o.identical() && !KNOWN.contains(o.spec()))
                .map(Outcome::spec).toList();
        assertEquals(List.of(), unexpected, table.toString());
    }

    private static Outcome runOne(Postgres server, PostgresSpecs specs, String name) throws Exception {
        long started = System.nanoTime();
        Spec spec = SpecReader.read(specs.spec(name));
        Transcript transcript = new Transcript();
        String failure = null;
        // All in parallel, those that create roles too: each run's roles have names of its own.
        try {
            IsolationRun.run(server, spec, List.of(), transcript, OPTIONS);
        } catch (IsolationFailure e) {
            failure = e.getMessage();
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        String actual = transcript.text();
        List<String> expected = specs.expected(name);
        if (expected.contains(actual)) {
            return new Outcome(name, true, null, millis);
        }
        return new Outcome(name, false, (failure == null ? "" : "stopped: " + failure + "; ")
                + firstDifference(expected.get(0), actual), millis);
    }

    /** Where the transcript first departs from the expected output, in one line. */
    static String firstDifference(String expected, String actual) {
        String[] e = expected.split("\n", -1);
        String[] a = actual.split("\n", -1);
        for (int i = 0; i < Math.max(e.length, a.length); i++) {
            String want = i < e.length ? e[i] : "<end>";
            String got = i < a.length ? a[i] : "<end>";
            if (!want.equals(got)) {
                return "line " + (i + 1) + ": expected '" + want + "', got '" + got + "'";
            }
        }
        return "no line differs";
    }

    private static int majorVersion() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            return Integer.parseInt(rs.getString(1)) / 10_000;
        }
    }
}
