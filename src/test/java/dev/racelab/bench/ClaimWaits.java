package dev.racelab.bench;

import dev.racelab.backend.Postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static dev.racelab.bench.BenchQueue.BENCH;

/**
 * Where the consumers' claims wait: while one side drains a queue, {@code pg_stat_activity} read
 * every 5 ms on a connection of its own, and each consumer session found running a claim statement
 * counted by what it waited for ({@code Lock:tuple}, {@code Lock:transactionid}, {@code
 * LWLock:WALWrite}, … or {@code running}). A claim statement is one with a {@code LIMIT}: the
 * claims are the only such statements a consumer sends. The sampler's own reads are a query every
 * 5 ms, so it is on only when asked ({@code scripts/bench jobqueue … waits}); otherwise {@link
 * #NONE} does nothing.
 */
final class ClaimWaits implements AutoCloseable {

    /** Samples nothing. */
    static final ClaimWaits NONE = new ClaimWaits();

    private final Map<String, Long> counts = new TreeMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread sampler;
    private Connection connection;

    private ClaimWaits() {
    }

    /** Starts sampling until {@link #close()}. */
    static ClaimWaits start(Postgres postgres) throws Exception {
        ClaimWaits waits = new ClaimWaits();
        waits.connection = postgres.connect("bench-waits");
        waits.sampler = new Thread(waits::sample, "bench-claim-waits");
        waits.sampler.setDaemon(true);
        waits.sampler.start();
        return waits;
    }

    private void sample() {
        try (PreparedStatement ps = connection.prepareStatement(BENCH.get("waits"))) {
            while (!stop.get()) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getString(1).contains("LIMIT")) {
                            synchronized (counts) {
                                counts.merge(rs.getString(2), 1L, Long::sum);
                            }
                        }
                    }
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            synchronized (counts) {
                counts.put("sampling failed: " + e.getMessage(), 0L);
            }
        }
    }

    /** The waits seen, largest first, as shares of the samples: "Lock:tuple 61%, running 4%, …". */
    String summary() {
        synchronized (counts) {
            long total = counts.values().stream().mapToLong(Long::longValue).sum();
            if (total == 0) {
                return "no samples";
            }
            return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                    .limit(5).map(e -> String.format("%s %.0f%%", e.getKey(), 100.0 * e.getValue() / total))
                    .collect(Collectors.joining(", ")) + " (" + total + " samples)";
        }
    }

    @Override
    public void close() throws Exception {
        if (sampler == null) {
            return;
        }
        stop.set(true);
        sampler.join(TimeUnit.SECONDS.toMillis(10));
        connection.close();
    }
}
