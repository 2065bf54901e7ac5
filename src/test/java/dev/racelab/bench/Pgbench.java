package dev.racelab.bench;

import dev.racelab.backend.PgAddress;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * pgbench as a benchmark's peer: a custom script file sent by {@code N} clients with {@code -M
 * prepared} and one thread per client ({@code -c N -j N}), against the server RaceLab uses. pgbench
 * connects every client before its clock starts, as RaceLab's benchmarks open their connections
 * before theirs.
 *
 * <p>pgbench has no way for a client to stop by itself before its transactions are done, so a
 * script that runs until there is nothing left to do (a queue drained) ends each client by failing
 * a meta-command, {@link #END_CLIENT}; such a run is asked for with {@code endsByFailing}, and it
 * is accepted only if every client ended there and nothing else failed.
 */
final class Pgbench {

    /** A script's line that ends the client running it: a meta-command that fails (pgbench 15 has no other). */
    static final String END_CLIENT = "\\set end_of_client 1 / 0";

    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)");
    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");
    private static final Pattern ENDED = Pattern.compile("client \\d+ aborted in command \\d+ \\(set\\)");

    /** What pgbench reported: transactions completed, and the seconds from its start line to its last client's end. */
    record Report(long transactions, double seconds) {

        double perSecond() {
            return transactions / seconds;
        }
    }

    private Pgbench() {
    }

    /**
     * Runs {@code script} on {@code clients} clients, each for at most {@code transactions}
     * transactions, with the variables given ({@code -D name=value}).
     *
     * @param endsByFailing whether every client is to end at {@link #END_CLIENT} (a drain)
     */
    static Report run(PgAddress address, Path script, int clients, long transactions, Map<String, String> variables,
                      boolean endsByFailing) throws Exception {
        List<String> command = new ArrayList<>(List.of("pgbench", "-n", "-M", "prepared",
                "-c", String.valueOf(clients), "-j", String.valueOf(clients), "-t", String.valueOf(transactions),
                "-f", script.toString()));
        variables.forEach((name, value) -> command.addAll(List.of("-D", name + "=" + value)));
        command.addAll(List.of("-h", address.host(), "-p", String.valueOf(address.port()), "-U", address.user(),
                address.database()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        String password = address.properties().getProperty("password");
        if (password != null) {
            builder.environment().put("PGPASSWORD", password);
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("pgbench did not finish in 3 minutes: " + output);
        }
        boolean ok = endsByFailing ? process.exitValue() == 2 && endedAsScripted(output, clients)
                : process.exitValue() == 0;
        if (!ok) {
            throw new IllegalStateException("pgbench failed (exit " + process.exitValue() + "): " + output);
        }
        long processed = Long.parseLong(find(PROCESSED, output));
        double tps = Double.parseDouble(find(TPS, output));
        return new Report(processed, tps > 0 ? processed / tps : Double.NaN);
    }

    /** Every client ended at the failing {@code \set}, and nothing but that failed. */
    private static boolean endedAsScripted(String output, int clients) {
        long ended = 0;
        for (String line : output.split("\n")) {
            if (ENDED.matcher(line).find()) {
                ended++;
            } else if (line.contains("error:") && !line.contains("division by zero")
                    && !line.contains("Run was aborted")) {
                return false;
            }
        }
        return ended == clients;
    }

    private static String find(Pattern pattern, String output) {
        Matcher m = pattern.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("pgbench's report has no '" + pattern + "': " + output);
        }
        return m.group(1);
    }
}
