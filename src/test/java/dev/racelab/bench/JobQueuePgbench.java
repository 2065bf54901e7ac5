package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.bench.JobQueueBenchmark.Claim;
import dev.racelab.bench.JobQueueBenchmark.Drain;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.racelab.bench.BenchQueue.BENCH;
import static dev.racelab.bench.BenchQueue.LAB;

/**
 * pgbench's side of the job-queue benchmark: one pgbench client per consumer sending the same
 * claim statements as RaceLab's consumers (the lab's, and the benchmark's blocking claim), with the
 * same batch and the same send time ({@code \sleep} once per email), each client a loop of one
 * claim, its sends and its mark, until a claim finds nothing left.
 *
 * <p>The statements are the lab's text with pgbench's variables for its parameters. Where a claim
 * answers a row per job, pgbench takes them folded into one row ({@code WITH claimed AS (…) SELECT
 * count(*), array_agg(id) FROM claimed}), as {@code \gset} takes one row only; the claim inside is
 * the same statement. The token of a claim is a random 63-bit number (RaceLab counts them).
 */
final class JobQueuePgbench implements AutoCloseable {

    /** The variables a claim's parameters take, in the order of its {@code ?}s. */
    private static final String[] CLAIM = {"run", "token", "client_id", "lease", "batch"};

    private final Map<Claim, Path> scripts = new EnumMap<>(Claim.class);
    private final Postgres postgres;
    private final int batch;

    /** Writes each claim's script for batches of {@code batch} and {@code sendMillis} per email. */
    JobQueuePgbench(Postgres postgres, int batch, int sendMillis) throws Exception {
        this.postgres = postgres;
        this.batch = batch;
        for (Claim claim : Claim.values()) {
            Path file = Files.createTempFile("racelab-jobqueue-" + claim.name().toLowerCase() + "-", ".pgbench");
            Files.writeString(file, script(claim, batch, sendMillis), StandardCharsets.UTF_8);
            scripts.put(claim, file);
        }
    }

    /** Drains {@code queue} with {@code consumers} pgbench clients taking jobs the {@code claim} way. */
    Drain drain(BenchQueue queue, Claim claim, int consumers) throws Exception {
        Pgbench.Report report = Pgbench.run(postgres.address(), scripts.get(claim), consumers, 1_000_000_000,
                Map.of("run", queue.run(), "batch", String.valueOf(batch), "lease", "0", "only_mine", "false"), true);
        return new Drain(queue.sentPerSecond("pgbench's " + claim.title, report.seconds()), report.transactions());
    }

    /** A client's loop: claim a batch (ending the client when nothing is left), send it, mark it sent. */
    static String script(Claim claim, int batch, int sendMillis) {
        StringBuilder s = new StringBuilder("\\set token random(1, 9223372036854775806)\n");
        switch (claim) {
            case BLOCKING -> s.append("BEGIN;\n").append(folded(statement(BENCH, "claim-blocking", "run", "batch")))
                    .append(endWhen("n"));
            case SKIP_LOCKED -> s.append(folded(statement(LAB, "claim-skip-locked", CLAIM))).append(endWhen("n"));
            case REQUEST_TOKEN -> s.append(statement(LAB, "claim-by-token", CLAIM)).append("\n\\gset claim_\n")
                    .append(endWhen("claim_count"))
                    .append(folded(statement(LAB, "select-by-token", "run", "token")));
        }
        for (int i = 1; i <= batch; i++) {
            s.append("\\if :n >= ").append(i).append("\n\\sleep ").append(sendMillis).append(" ms\n\\endif\n");
        }
        s.append("\\if :n > 0\n")
                .append(statement(LAB, "mark-sent", "run", "ids", "client_id", "token", "only_mine")).append(";\n")
                .append("\\endif\n");
        if (claim == Claim.BLOCKING) {
            s.append("COMMIT;\n");
        }
        return s.toString();
    }

    /** A statement answering a row per job, folded into one row: {@code n} jobs, {@code ids}. */
    private static String folded(String statement) {
        return "WITH claimed AS (\n" + statement + "\n)\nSELECT count(*) AS n, array_agg(id) AS ids FROM claimed\n"
                + "\\gset\n";
    }

    /** Ends the client when the claim before found nothing. */
    private static String endWhen(String variable) {
        return "\\if :" + variable + " = 0\n" + Pgbench.END_CLIENT + "\n\\endif\n";
    }

    /** A named statement of {@code file}, comments left out, each {@code ?} the next of pgbench's {@code variables}. */
    static String statement(SqlFile file, String name, String... variables) {
        String sql = file.get(name).lines().filter(line -> !line.strip().startsWith("--"))
                .collect(Collectors.joining("\n"));
        StringBuilder out = new StringBuilder();
        int next = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                if (next == variables.length) {
                    throw new IllegalStateException(name + " has more parameters than " + variables.length);
                }
                out.append(':').append(variables[next++]);
            } else {
                out.append(ch);
            }
        }
        if (next != variables.length) {
            throw new IllegalStateException(name + " has " + next + " parameters, not " + variables.length);
        }
        return out.toString();
    }

    @Override
    public void close() throws Exception {
        for (Path file : scripts.values()) {
            Files.deleteIfExists(file);
        }
    }
}
