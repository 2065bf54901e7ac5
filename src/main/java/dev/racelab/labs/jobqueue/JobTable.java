package dev.racelab.labs.jobqueue;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job table as a run's record tells it: for each job whether it was added, who is sending
 * it, how often it was sent, whether its claim was taken over or left behind by a consumer that
 * crashed; and for each consumer what it sent. Built from events only, so the picture and panels
 * it feeds look the same live and replayed; the oracle feeds it the same events for the one
 * figure it takes from the record, the rate.
 *
 * <p>Owned by the thread that feeds it.
 */
final class JobTable {

    /** How a job's cell looks. */
    enum Look {
        /** Not added yet. */
        PLANNED,
        /** In the queue, nobody on it. */
        NEW,
        /** Taken: claimed, or (select-then-update) selected, and not sent yet. */
        TAKEN,
        /** Claimed by a consumer that crashed, with nobody sending it. */
        ORPHANED,
        /** Sent once. */
        SENT,
        /** Sent more than once. */
        SENT_TWICE
    }

    /** One job, as the record tells it. */
    static final class Job {
        private boolean added;
        private int sends;
        private int claimer = -1;
        private boolean reclaimed;
        private boolean orphaned;
        /** Actor ids of the consumers that took it and have not finished with it, in the order they took it. */
        private final List<Integer> handlers = new ArrayList<>(2);

        Look look() {
            if (sends > 1) {
                return Look.SENT_TWICE;
            }
            if (sends == 1) {
                return Look.SENT;
            }
            if (orphaned) {
                return Look.ORPHANED;
            }
            if (!handlers.isEmpty()) {
                return Look.TAKEN;
            }
            return added ? Look.NEW : Look.PLANNED;
        }

        int sends() {
            return sends;
        }

        /** The consumers on it now; for an orphan, the one that crashed holding it. */
        List<Integer> handlers() {
            return handlers;
        }

        /** Whether a consumer took over its claim from another (the other's lease ran out). */
        boolean reclaimed() {
            return reclaimed;
        }
    }

    /** What one consumer did. */
    static final class Consumer {
        private int sent;
        private int shortBatches;
        private boolean crashed;
        private final List<Integer> jobs = new ArrayList<>();

        int sent() {
            return sent;
        }

        int shortBatches() {
            return shortBatches;
        }

        boolean crashed() {
            return crashed;
        }
    }

    private final boolean claims;
    private final List<Job> jobs = new ArrayList<>();
    private final Map<Integer, Consumer> consumers = new LinkedHashMap<>();
    private final Set<Integer> reclaimedJobs = new HashSet<>();
    private int planned;
    private int added;
    private int sentJobs;
    private int emails;
    private int duplicates;
    private int sentTwice;
    private int shortBatches;
    private int refused;
    private long startNanos = -1;
    private long lastSentNanos = -1;
    private boolean stopping;
    private boolean ended;

    /**
     * @param claims  whether the strategy claims jobs (a crashed claimer orphans them; a later
     *                claim takes them over) or only selects them (several consumers may be on one job)
     * @param planned how many jobs the run is to add
     */
    JobTable(boolean claims, int planned) {
        this.claims = claims;
        this.planned = planned;
        for (int i = 0; i < planned; i++) {
            jobs.add(new Job());
        }
    }

    /** Takes the next event; returns whether anything this table shows changed. */
    boolean accept(Event e) {
        switch (e.kind()) {
            case RUN_STARTED -> startNanos = e.nanos();
            case RUN_STOPPING -> stopping = true;
            case RUN_ENDED -> ended = true;
            case JOB_ADDED -> {
                Job job = job(e.value());
                if (!job.added) {
                    job.added = true;
                    added++;
                }
            }
            case JOB_TAKEN -> taken(e.actor(), job(e.value()), (int) e.value());
            case JOB_SENT -> sent(e.actor(), job(e.value()), (int) e.value(), e.nanos());
            case SHORT_BATCH -> {
                shortBatches++;
                consumer(e.actor()).shortBatches++;
            }
            case WRITE_REJECTED -> refused(e.actor());
            case STATE -> {
                if (e.state() != ActorState.FAILED || !consumers.containsKey(e.actor())) {
                    return false;
                }
                crashed(e.actor());
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private void taken(int actor, Job job, int id) {
        Consumer consumer = consumer(actor);
        if (claims) {
            if (job.claimer >= 0 && job.sends == 0) {
                job.reclaimed = true;
                reclaimedJobs.add(id);
                Consumer before = consumers.get(job.claimer);
                if (before != null) {
                    before.jobs.remove(Integer.valueOf(id));
                }
            }
            job.claimer = actor;
            job.orphaned = false;
            job.handlers.clear();
        }
        job.handlers.add(actor);
        consumer.jobs.add(id);
    }

    private void sent(int actor, Job job, int id, long nanos) {
        Consumer consumer = consumer(actor);
        job.sends++;
        emails++;
        if (job.sends == 1) {
            sentJobs++;
        } else {
            duplicates++;
            if (job.sends == 2) {
                sentTwice++;
            }
        }
        job.handlers.remove(Integer.valueOf(actor));
        consumer.jobs.remove(Integer.valueOf(id));
        consumer.sent++;
        lastSentNanos = nanos;
    }

    /** The consumer's mark went through for none of the rest of its batch: they are another's now. */
    private void refused(int actor) {
        refused++;
        Consumer consumer = consumer(actor);
        for (int id : consumer.jobs) {
            jobs.get(id - 1).handlers.remove(Integer.valueOf(actor));
        }
        consumer.jobs.clear();
    }

    private void crashed(int actor) {
        Consumer consumer = consumer(actor);
        consumer.crashed = true;
        for (int id : consumer.jobs) {
            Job job = jobs.get(id - 1);
            if (claims && job.claimer == actor && job.sends == 0) {
                job.orphaned = true;
            } else {
                job.handlers.remove(Integer.valueOf(actor));
            }
        }
        consumer.jobs.clear();
    }

    private Job job(long id) {
        while (jobs.size() < id) {
            jobs.add(new Job());
            planned = Math.max(planned, jobs.size());
        }
        return jobs.get((int) id - 1);
    }

    private Consumer consumer(int actor) {
        return consumers.computeIfAbsent(actor, a -> new Consumer());
    }

    /** Registers a consumer before it did anything, so it is listed from the start. */
    void consumerLane(int actor) {
        consumer(actor);
    }

    List<Job> jobs() {
        return jobs;
    }

    /** Consumers by actor id, in the order they were registered or first did something. */
    Map<Integer, Consumer> consumers() {
        return consumers;
    }

    int planned() {
        return planned;
    }

    int added() {
        return added;
    }

    /** Jobs sent at least once. */
    int sentJobs() {
        return sentJobs;
    }

    /** Emails sent, duplicates included. */
    int emails() {
        return emails;
    }

    /** Emails beyond the first for their job. */
    int duplicates() {
        return duplicates;
    }

    /** Jobs sent more than once. */
    int sentTwice() {
        return sentTwice;
    }

    int shortBatches() {
        return shortBatches;
    }

    /** Jobs whose send the conditional mark called off: their claim was another consumer's by then. */
    int refused() {
        return refused;
    }

    /** Jobs a consumer claimed after another's claim on them ran out. */
    int reclaimed() {
        return reclaimedJobs.size();
    }

    /** Jobs claimed by a consumer that crashed, unsent, and not taken over (yet). */
    int orphaned() {
        int n = 0;
        for (Job job : jobs) {
            if (job.look() == Look.ORPHANED) {
                n++;
            }
        }
        return n;
    }

    /** Jobs added but neither sent nor orphaned. */
    int unsent() {
        int n = 0;
        for (Job job : jobs) {
            if (job.added && job.sends == 0 && !job.orphaned) {
                n++;
            }
        }
        return n;
    }

    /** Whether the run ended by itself: its workers finished, nobody stopped it. */
    boolean endedByItself() {
        return ended && !stopping;
    }

    boolean ended() {
        return ended;
    }

    /**
     * Jobs sent per second: jobs sent at least once, over the time from the workers' start to the
     * last send, rounded to a whole number; 0 before the first send.
     */
    long jobsPerSecond() {
        if (startNanos < 0 || lastSentNanos <= startNanos || sentJobs == 0) {
            return 0;
        }
        return Math.round(sentJobs * 1e9 / (lastSentNanos - startNanos));
    }
}
