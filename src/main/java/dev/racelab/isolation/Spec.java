package dev.racelab.isolation;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An isolation spec as PostgreSQL's {@code isolationtester} reads it: setup blocks run before
 * every permutation, a teardown after, sessions with their own setup, steps and teardown, and the
 * permutations to run. With no permutation line every interleaving of the sessions' steps is run
 * ({@link #permutations()}).
 *
 * @param name      the test's name: the file name without {@code .spec}
 * @param setups    each run as one submission on the control connection, in order
 * @param teardown  run on the control connection after each permutation, or null
 * @param sessions  at least one
 * @param declared  the permutation lines, in order; empty when the spec has none
 */
public record Spec(String name, List<String> setups, String teardown, List<Session> sessions,
                   List<Permutation> declared) {

    public Spec {
        setups = List.copyOf(setups);
        sessions = List.copyOf(sessions);
        declared = List.copyOf(declared);
    }

    /** Every step of every session, sessions in order. */
    public List<Step> steps() {
        List<Step> all = new ArrayList<>();
        sessions.forEach(session -> all.addAll(session.steps()));
        return all;
    }

    public Optional<Step> step(String stepName) {
        return steps().stream().filter(step -> step.name().equals(stepName)).findFirst();
    }

    public Session sessionOf(Step step) {
        return sessions.get(step.session());
    }

    /**
     * The permutations a run of the whole spec runs: the declared ones, or, with none declared,
     * every interleaving of the sessions' steps in isolationtester's order (the first session's
     * next step first), made as they are needed.
     */
    public Iterable<Permutation> permutations() {
        return declared.isEmpty() ? () -> new Interleavings(sessions) : declared;
    }

    /** How many permutations {@link #permutations()} gives: the interleavings may be very many. */
    public BigInteger permutationCount() {
        return declared.isEmpty() ? Interleavings.count(sessions) : BigInteger.valueOf(declared.size());
    }

    /**
     * The steps no permutation line uses, sorted by name as isolationtester warns of them ("unused
     * step name: …", before everything else); none when the spec declares no permutation.
     */
    public List<String> unusedSteps() {
        if (declared.isEmpty()) {
            return List.of();
        }
        Map<String, Boolean> used = new HashMap<>();
        steps().forEach(step -> used.put(step.name(), false));
        declared.forEach(p -> p.steps().forEach(s -> used.put(s.name(), true)));
        return used.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey)
                .sorted(Comparator.comparing(Spec::bytes, Spec::compareBytes)).toList();
    }

    /** Every piece of SQL the spec holds, one after another. */
    public String allSql() {
        StringBuilder text = new StringBuilder();
        setups.forEach(sql -> text.append(sql).append('\n'));
        if (teardown != null) {
            text.append(teardown).append('\n');
        }
        for (Session session : sessions) {
            if (session.setup() != null) {
                text.append(session.setup()).append('\n');
            }
            session.steps().forEach(step -> text.append(step.sql()).append('\n'));
            if (session.teardown() != null) {
                text.append(session.teardown()).append('\n');
            }
        }
        return text.toString();
    }

    /** isolationtester sorts names with {@code strcmp}: by their bytes, unsigned. */
    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static int compareBytes(byte[] a, byte[] b) {
        return java.util.Arrays.compareUnsigned(a, b);
    }
}
