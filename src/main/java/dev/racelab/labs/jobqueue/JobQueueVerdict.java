package dev.racelab.labs.jobqueue;

import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Verdict;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * The job queue's verdict: what the server holds at the end (each job's claims and emails, who
 * sent what) read into a tally, and the outcome said in words, beside what the workers counted
 * (short batches, sends called off, the consumers that crashed).
 */
final class JobQueueVerdict {

    /**
     * What the consumers count for the verdict, beside what the server holds: claims that got
     * fewer jobs than were free, sends called off by the conditional mark, and the names of the
     * consumers that crashed. Written by every consumer's thread, read by the supervisor's.
     */
    record Counts(LongAdder shortBatches, LongAdder refused, Set<String> crashed) {

        Counts() {
            this(new LongAdder(), new LongAdder(), ConcurrentHashMap.newKeySet());
        }
    }

    private final JobQueueStrategy strategy;
    private final RunSetup setup;
    private final int jobs;
    private final int leaseMs;
    private final Set<String> crashed;
    private final LongAdder shortBatches;
    private final LongAdder refused;

    JobQueueVerdict(JobQueueStrategy strategy, RunSetup setup, int jobs, int leaseMs, Counts counts) {
        this.strategy = strategy;
        this.setup = setup;
        this.jobs = jobs;
        this.leaseMs = leaseMs;
        this.crashed = counts.crashed();
        this.shortBatches = counts.shortBatches();
        this.refused = counts.refused();
    }

    /** Reads the table and the outbox; {@code complete}: the workers finished, so an unsent job is lost. */
    Outcome outcome(Connection admin, RunSummary summary, boolean complete) throws SQLException {
        Tally tally = tally(admin);
        Map<String, Long> violations = new LinkedHashMap<>();
        put(violations, JobQueueScenario.DUPLICATES, tally.duplicates);
        put(violations, JobQueueScenario.ORPHANED, tally.orphaned.size());
        long lost = complete ? tally.unsent.size() + (jobs - tally.added) : 0;
        put(violations, JobQueueScenario.LOST, lost);
        // The rate as the picture shows it: from the same events, by the same rule.
        JobTable recorded = new JobTable(strategy.claims(), jobs);
        summary.recorder().drain(0, Integer.MAX_VALUE, recorded::accept);

        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("jobs", tally.added);
        metrics.put("emailsSent", tally.emails);
        metrics.put("duplicateEmails", tally.duplicates);
        metrics.put("jobsSentTwice", tally.sentTwice.size());
        metrics.put("orphanedJobs", tally.orphaned.size());
        metrics.put("lostJobs", lost);
        metrics.put("shortBatches", shortBatches.sum());
        metrics.put("reclaimedJobs", tally.reclaimed);
        metrics.put("sendsCalledOff", refused.sum());
        metrics.put("jobsPerSec", recorded.jobsPerSecond());

        String shares = shares(tally);
        String also = also(tally);
        if (tally.duplicates > 0) {
            return new Outcome(Verdict.RACE, count(tally.duplicates, "duplicate email") + ": "
                    + count(tally.sentTwice.size(), "job") + " sent more than once",
                    twice(tally) + " " + how() + orphanText(tally) + also + shares, violations, metrics, List.of());
        }
        if (!tally.orphaned.isEmpty()) {
            return new Outcome(Verdict.STUCK, count(tally.orphaned.size(), "job") + " orphaned: "
                    + String.join(", ", crashed) + " crashed holding " + (tally.orphaned.size() == 1 ? "it" : "them"),
                    orphanText(tally).strip() + " Without a lease nothing takes a claim back: set lease-ms." + also
                            + shares, violations, metrics, List.of());
        }
        if (lost > 0) {
            return new Outcome(Verdict.RACE, count(lost, "job") + " lost",
                    (tally.unsent.size() == 1 ? "Job " : "Jobs ") + ids(tally.unsent)
                            + " never went out, though nobody held " + (tally.unsent.size() == 1 ? "it." : "them.") + also + shares,
                    violations, metrics, List.of());
        }
        if (!complete) {
            return new Outcome(Verdict.SAFE, "no job sent twice so far",
                    tally.emails + " emails for " + tally.added + " jobs so far." + also + shares,
                    violations, metrics, List.of());
        }
        return new Outcome(Verdict.SAFE, "every job sent exactly once: " + tally.added + " jobs, "
                + recorded.jobsPerSecond() + " jobs/s",
                tally.emails + " emails for " + tally.added + " jobs." + also + shares, violations, metrics, List.of());
    }

    /** How jobs went out twice with this strategy, in one sentence for the explanation. */
    private String how() {
        return switch (strategy) {
            case SELECT_THEN_UPDATE -> "Consumers that selected the same oldest unsent jobs before any of them "
                    + "marked them sent each sent them.";
            case REQUEST_TOKEN, SKIP_LOCKED -> "A claim whose lease ran out while its consumer was still sending "
                    + "was taken over and sent by another; the slow consumer's mark did not check whose claim it "
                    + "was, and sent the job again.";
        };
    }

    private static String twice(Tally tally) {
        List<String> each = new ArrayList<>();
        for (Map.Entry<Integer, Long> job : tally.sentTwice.entrySet()) {
            if (each.size() == 6) {
                each.add("…");
                break;
            }
            each.add("job " + job.getKey() + " ×" + job.getValue());
        }
        String list = String.join(", ", each);
        return "Sent more than once: " + list + (list.endsWith("…") ? "" : ".");
    }

    private String orphanText(Tally tally) {
        if (tally.orphaned.isEmpty()) {
            return "";
        }
        boolean one = tally.orphaned.size() == 1;
        return (one ? " Job " : " Jobs ") + ids(tally.orphaned) + (one ? " stays" : " stay") + " claimed by "
                + String.join(", ", crashed) + ", which crashed after claiming " + (one ? "it." : "them.");
    }

    private String also(Tally tally) {
        StringBuilder text = new StringBuilder();
        if (strategy == JobQueueStrategy.REQUEST_TOKEN || shortBatches.sum() > 0) {
            text.append(' ').append(count(shortBatches.sum(), "short batch")).append(shortBatches.sum() == 1
                    ? " (a claim that got fewer jobs than it found free: others claimed them first)."
                    : " (claims that got fewer jobs than they found free: others claimed them first).");
        }
        if (tally.reclaimed > 0) {
            text.append(' ').append(count(tally.reclaimed, "job")).append(" taken over after a lease ran out.");
        }
        if (refused.sum() > 0) {
            text.append(' ').append(count(refused.sum(), "send")).append(" called off: the claim was another "
                    + "consumer's by the time of the mark.");
        }
        return text.toString();
    }

    private static String shares(Tally tally) {
        long total = tally.sentBy.values().stream().mapToLong(Long::longValue).sum();
        if (total == 0) {
            return "";
        }
        return " Sent by " + tally.sentBy.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue() + " (" + Math.round(100.0 * e.getValue() / total) + "%)")
                .collect(Collectors.joining(", ")) + ".";
    }

    /** What the server holds at the end. */
    private static final class Tally {
        int added;
        long emails;
        long duplicates;
        int reclaimed;
        /** Job → emails sent, for the jobs sent more than once. */
        final Map<Integer, Long> sentTwice = new TreeMap<>();
        final List<Integer> orphaned = new ArrayList<>();
        final List<Integer> unsent = new ArrayList<>();
        /** Consumer → emails it sent, in consumer order. */
        final Map<String, Long> sentBy = new TreeMap<>((a, b) -> Integer.compare(number(a), number(b)));
    }

    private Tally tally(Connection admin) throws SQLException {
        Tally tally = new Tally();
        for (int consumer = 1; consumer < setup.workers(); consumer++) {
            tally.sentBy.put(JobQueueLab.CONSUMER + "-" + consumer, 0L);
        }
        try (PreparedStatement ps = admin.prepareStatement(JobQueueScenario.SQL.get("jobs"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    int claims = rs.getInt(2);
                    String holder = rs.getString(3);
                    long emails = rs.getLong(5);
                    tally.added++;
                    tally.emails += emails;
                    if (emails > 1) {
                        tally.duplicates += emails - 1;
                        tally.sentTwice.put(id, emails);
                    }
                    if (claims > 1) {
                        tally.reclaimed++;
                    }
                    if (emails == 0) {
                        (holder != null && crashed.contains(holder) && leaseMs == 0 ? tally.orphaned : tally.unsent)
                                .add(id);
                    }
                }
            }
        }
        try (PreparedStatement ps = admin.prepareStatement(JobQueueScenario.SQL.get("sent-by"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tally.sentBy.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return tally;
    }

    private static int number(String consumer) {
        int dash = consumer.lastIndexOf('-');
        try {
            return Integer.parseInt(consumer.substring(dash + 1));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static void put(Map<String, Long> map, String name, long n) {
        if (n > 0) {
            map.put(name, n);
        }
    }

    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : noun.endsWith("ch") ? "es" : "s");
    }

    /** "5, 6, 7 and 8", or the first few and how many more. */
    static String ids(List<Integer> ids) {
        if (ids.size() > 8) {
            return ids.subList(0, 8).stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + " and " + (ids.size() - 8) + " more";
        }
        if (ids.size() == 1) {
            return String.valueOf(ids.get(0));
        }
        return ids.subList(0, ids.size() - 1).stream().map(String::valueOf).collect(Collectors.joining(", "))
                + " and " + ids.get(ids.size() - 1);
    }
}
