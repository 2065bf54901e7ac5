package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.Redis;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.StreamEntry;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A participant of a class: its own workers, on this machine, in the class's run against the
 * class's servers. It joins, prepares its run when the host says (its workers connect and halt at
 * their first gate), says it is ready, and lets them go at the instant the host names, in server
 * time ({@link ClassClock}); its workers' events go to the host as they happen ({@link
 * MemberFeed}). It follows the host's pause, resume and stop, and ends with the host's verdict, or
 * with a message when the host is gone.
 */
public final class ClassMember {

    /** What a participant's part ended with. */
    public record Ending(boolean judged, String verdict, String headline, String explanation) {
    }

    /**
     * How long a login to the class's servers may take: a class's machines log in all at once,
     * forty of them to one host's servers, and a host's machine is busy then.
     */
    static final Duration LOGIN_WITHIN = Duration.ofSeconds(60);

    /** How long the host may stay silent before its participants give up on it. */
    static final long HOST_GONE_MILLIS = 4_000;

    private final JoinLine line;
    private final String name;
    private final int workers;
    private final Path home;
    private final Consumer<String> say;
    private final long wallSkewNanos;
    private StreamEntryID joinedAfter = new StreamEntryID(0, 0);
    private final String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    /**
     * @param name    what the host's lanes call this participant
     * @param workers how many workers it runs
     * @param home    where RaceLab keeps its files on this machine
     * @param say     where progress goes, a line at a time
     */
    public ClassMember(JoinLine line, String name, int workers, Path home, Consumer<String> say) {
        this(line, name, workers, home, 0, say);
    }

    /**
     * {@link #ClassMember(JoinLine, String, int, Path, Consumer)} on a machine whose wall clock is
     * {@code wallSkewNanos} ahead of this one's: for a benchmark that checks the class's clock
     * estimate against a skew it injected.
     */
    public ClassMember(JoinLine line, String name, int workers, Path home, long wallSkewNanos, Consumer<String> say) {
        this.wallSkewNanos = wallSkewNanos;
        this.line = line;
        this.name = name;
        this.workers = workers;
        this.home = home;
        this.say = say;
    }

    /**
     * Joins and takes part until the class's run ends.
     *
     * @throws BackendException the class's servers cannot be reached with the line's credentials
     */
    public Ending take() throws BackendException, InterruptedException {
        Redis redis = Redis.connect(line.redis(), LOGIN_WITHIN);
        try (Backends servers = new Backends(new BackendSettings(Optional.of(line.postgres()),
                Optional.of(line.redis())), home, StartupListener.SILENT);
             ClassChannel channel = new ClassChannel(redis.open("class-" + id, 0), line.code());
             Heartbeat heartbeat = Heartbeat.start(redis, line.code(), id)) {
            servers.loginWithin(LOGIN_WITHIN);
            ClassClock clock = channel.clock(wallSkewNanos);
            joinedAfter = channel.last(ClassChannel.CONTROL);
            channel.post(ClassChannel.ROLL, Map.of("type", "join", "member", id, "name", name,
                    "workers", String.valueOf(workers), "skew", String.valueOf(clock.skewNanos()),
                    "error", String.valueOf(clock.errorNanos())));
            say.accept("Joined class " + line.code() + " as " + name + " (clock " + offsetText(clock) + ")");
            return follow(channel, clock, new Labs(servers), redis);
        } finally {
            closeQuietly(redis);
        }
    }

    private Ending follow(ClassChannel channel, ClassClock clock, Labs labs, Redis redis) throws InterruptedException {
        // What the host says from now on: a newcomer takes part in the next run, not one begun before it joined.
        StreamEntryID after = joinedAfter;
        Run run = null;
        MemberFeed feed = null;
        long hostHeard = System.nanoTime();
        try {
            while (true) {
                List<StreamEntry> entries = channel.read(ClassChannel.CONTROL, after, 500, 100);
                for (StreamEntry entry : entries) {
                    after = entry.getID();
                    Map<String, String> f = entry.getFields();
                    saidHeard(channel, clock, f);
                    switch (f.getOrDefault("type", "")) {
                        case "prepare" -> {
                            ClassPlan plan;
                            try {
                                plan = ClassPlan.from(f);
                            } catch (RuntimeException e) {
                                return new Ending(false, null, "the host's plan cannot be read",
                                        "The host sent a run this RaceLab cannot read (" + e.getMessage() + ").");
                            }
                            if (plan.seatOf(id) == null) {
                                return new Ending(false, null, "the class's run began without you",
                                        "You joined after the host had started the run.");
                            }
                            try {
                                run = prepare(plan, labs);
                            } catch (IllegalArgumentException e) {
                                String why = "the host's run cannot be run here: " + e.getMessage();
                                channel.post(ClassChannel.ROLL, Map.of("type", "failed", "member", id, "why", why));
                                return new Ending(false, null, "this machine's workers could not begin", why);
                            }
                            feed = MemberFeed.start(run, redis, line.code(), id, clock);
                            awaitHalted(run);
                            if (run.outcome().isDone()) {
                                // It failed before it began: the host counts it out, saying why.
                                var failed = run.outcome().join();
                                String why = failed.headline() + ": " + failed.explanation();
                                channel.post(ClassChannel.ROLL, Map.of("type", "failed", "member", id, "why", why));
                                return new Ending(false, null, "this machine's workers could not begin", why);
                            }
                            channel.post(ClassChannel.ROLL, Map.of("type", "ready", "member", id));
                            say.accept("Ready: " + workers + (workers == 1 ? " worker" : " workers") + " of "
                                    + plan.lab() + " wait for the host");
                        }
                        case "go" -> {
                            if (run != null) {
                                long at = clock.toLocal(Long.parseLong(f.get("at")));
                                long wait = at - System.nanoTime();
                                if (wait > 0) {
                                    TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.SECONDS.toNanos(5)));
                                }
                                feed.from(System.nanoTime());
                                run.resume();
                                say.accept("Go");
                            }
                        }
                        case "pause" -> {
                            if (run != null) {
                                run.pause();
                            }
                        }
                        case "resume" -> {
                            if (run != null) {
                                run.resume();
                            }
                        }
                        case "stop" -> {
                            if (run != null) {
                                run.stop();
                            }
                        }
                        case "ended" -> {
                            if (run != null) {
                                run.stop();
                                finish(run, feed, channel);
                            }
                            return new Ending(true, f.get("verdict"), f.get("headline"), f.get("explanation"));
                        }
                        default -> {
                            // A word of a newer host: not one this participant acts on.
                        }
                    }
                }
                if (run != null && run.outcome().isDone() && feed != null && !feed.finished()) {
                    finish(run, feed, channel);
                }
                if (!channel.alive(List.of(ClassHost.HOST)).get(0)) {
                    if (System.nanoTime() - hostHeard > TimeUnit.MILLISECONDS.toNanos(HOST_GONE_MILLIS)) {
                        return new Ending(false, null, "the host is gone",
                                "The class's host stopped answering, so the class's run ended without a verdict.");
                    }
                } else {
                    hostHeard = System.nanoTime();
                }
            }
        } catch (JedisException e) {
            return new Ending(false, null, "the class's Redis is out of reach",
                    "This machine lost the class's Redis (" + e.getMessage() + "), so it left the class.");
        } finally {
            if (run != null) {
                run.stop();
            }
            if (feed != null) {
                feed.close();
            }
        }
    }

    /** Tells the host how long its word took to come (by the server's clock): the class's gate latency. */
    private void saidHeard(ClassChannel channel, ClassClock clock, Map<String, String> f) {
        String what = f.getOrDefault("type", "");
        if (f.containsKey("sent") && List.of("go", "pause", "resume", "stop").contains(what)) {
            try {
                long took = clock.serverNow() - Long.parseLong(f.get("sent"));
                channel.post(ClassChannel.ROLL, Map.of("type", "heard", "member", id, "what", what,
                        "nanos", String.valueOf(took)));
            } catch (NumberFormatException notOne) {
                // A host that does not stamp its words: nothing to say.
            }
        }
    }

    /** This participant's run of the plan: its workers connect and halt at their first gate. */
    private Run prepare(ClassPlan plan, Labs labs) {
        Lab lab = labs.find(plan.lab()).orElseThrow(() -> new IllegalArgumentException(
                "the class runs lab " + plan.lab() + ", which this RaceLab does not have"));
        // In step mode: the workers halt at their first gate, until the host's go resumes them.
        RunSpec spec = plan.spec(lab, workers).withStepMode(true);
        Run run = new Run(new JoinedExperiment(lab, plan.run()), spec, Clock.system());
        run.start();
        return run;
    }

    /** Waits until every worker of {@code run} halted at its first gate: ready to go together. */
    private void awaitHalted(Run run) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (run.gates().halted().size() < workers && !run.outcome().isDone()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("this machine's workers did not get ready within 30 s");
            }
            Thread.sleep(5);
        }
    }

    private void finish(Run run, MemberFeed feed, ClassChannel channel) throws InterruptedException {
        try {
            var outcome = run.outcome().get(10, TimeUnit.SECONDS);
            if (outcome.verdict() == dev.racelab.engine.Verdict.ERROR) {
                say.accept("This machine's workers failed: " + outcome.headline() + ": " + outcome.explanation());
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Its events say what happened; the host judges.
        }
        feed.close();
        channel.post(ClassChannel.ROLL, Map.of("type", "done", "member", id,
                "ops", String.valueOf(run.opsCompleted())));
    }

    private static String offsetText(ClassClock clock) {
        return String.format("%+.1f ms from the server's, ±%.1f ms", -clock.skewNanos() / 1e6,
                clock.errorNanos() / 1e6);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // Leaving: nothing more to do with it.
        }
    }
}
