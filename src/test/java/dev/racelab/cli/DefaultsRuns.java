package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A lab's defaults run many times on the command line, in-process ({@code racelab run LAB
 * --strategy S --runs N --json}), as the per-lab defaults tests ask for them.
 */
final class DefaultsRuns {

    private DefaultsRuns() {
    }

    /** The JSON summary of {@code runs} runs of {@code strategy} with every other setting at the lab's default. */
    static JsonObject runs(Map<String, String> env, String lab, String strategy, int runs) {
        return runs(env, lab, strategy, runs, 1);
    }

    /** {@link #runs}, the first run with seed {@code firstSeed} (the default is 1), the next with the seed after. */
    static JsonObject runs(Map<String, String> env, String lab, String strategy, int runs, long firstSeed) {
        return runs(env, lab, strategy, runs, firstSeed, List.of());
    }

    /** {@link #runs}, with {@code more} of the command line's options ({@code --delay after-wake=5}, say). */
    static JsonObject runs(Map<String, String> env, String lab, String strategy, int runs, long firstSeed,
            List<String> more) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new java.util.ArrayList<>(List.of("run", lab, "--strategy", strategy, "--runs",
                String.valueOf(runs), "--seed", String.valueOf(firstSeed), "--json"));
        args.addAll(more);
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        assertEquals(0, code, lab + " " + strategy + ": " + err.toString(StandardCharsets.UTF_8));
        return JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
    }

    /** {@link #runs} for every strategy at once; the summaries in the order given, printed in one line. */
    static List<JsonObject> all(Map<String, String> env, String lab, List<String> strategies, int runs) {
        List<CompletableFuture<JsonObject>> going = strategies.stream()
                .map(strategy -> CompletableFuture.supplyAsync(() -> runs(env, lab, strategy, runs))).toList();
        List<JsonObject> results = going.stream().map(CompletableFuture::join).toList();
        System.out.printf("[%s] defaults, %d runs each: %s%n", lab, runs, results.stream()
                .map(r -> r.get("strategy").getAsString() + " " + r.get("verdicts") + " in " + r.get("elapsedMs") + " ms")
                .toList());
        return results;
    }

    /**
     * {@link #runs} for every strategy at once, each strategy's {@code runs} in two batches side by
     * side (seeds 1 onwards and the half after): for labs whose runs mostly wait. The summaries in
     * order, two per strategy (first half, second half), printed in one line.
     */
    static List<JsonObject> halves(Map<String, String> env, String lab, List<String> strategies, int runs) {
        List<CompletableFuture<JsonObject>> going = new java.util.ArrayList<>();
        for (String strategy : strategies) {
            for (long firstSeed : new long[] {1, 1 + runs / 2}) {
                going.add(CompletableFuture.supplyAsync(() -> runs(env, lab, strategy, runs / 2, firstSeed)));
            }
        }
        List<JsonObject> halves = going.stream().map(CompletableFuture::join).toList();
        System.out.printf("[%s] defaults, %d runs each: %s%n", lab, runs, halves.stream()
                .map(r -> r.get("strategy").getAsString() + " " + r.get("verdicts") + " in " + r.get("elapsedMs") + " ms")
                .toList());
        return halves;
    }

    /** How many of a summary's runs ended with any of {@code verdicts}. */
    static int count(JsonObject summary, String... verdicts) {
        JsonObject counted = summary.getAsJsonObject("verdicts");
        int sum = 0;
        for (String verdict : verdicts) {
            sum += counted.has(verdict) ? counted.get(verdict).getAsInt() : 0;
        }
        return sum;
    }
}
