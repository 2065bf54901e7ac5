package dev.racelab.labs.primitives;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.LabProfile;
import dev.racelab.labs.support.LockPanelsView;
import dev.racelab.labs.support.RedisLab;

import java.util.List;

/**
 * Redis locks and semaphores: workers take a mutex (or one of a semaphore's two permits) kept in
 * Redis around a critical section that increments a Redis counter.
 *
 * <p>The article's constructs work as long as every process behaves. The faults are what it does
 * not survive, and each has a <em>fault gate</em>: set any delay or a breakpoint on one for a
 * worker ({@code --delay holder-crashes=1@client-2}) and that worker suffers the fault there, the
 * first time it passes (after sitting out the delay). Fault gates do nothing for workers without
 * a rule, and step mode alone does not stop at them. The hardened constructs come through every
 * fault: a crashed holder's lease runs out, a waiter that gives up leaves the queue, a wake-up
 * nobody can hear is skipped, a grant nobody takes up expires, a repeated release is refused.
 */
public final class PrimitivesLab extends RedisLab {

    static final Gate BEFORE_ACQUIRE = new Gate("before-acquire",
            "before the worker asks for the mutex (or a permit)");
    static final Gate WAITER_CRASHES = new Gate("waiter-crashes",
            "fault gate: a worker with a rule here that finds the mutex taken and joins the queue crashes "
                    + "there; its connections close. The article's retry saves its permit.");
    static final Gate WAITER_VANISHES = new Gate("waiter-vanishes",
            "fault gate: a worker with a rule here that joins the queue vanishes there (its host froze): it "
                    + "never acts again, but its connections stay open, so its wake-up counts as received");
    static final Gate WAITER_GIVES_UP = new Gate("waiter-gives-up",
            "fault gate: a worker with a rule here that joins the queue stops waiting, as a client whose "
                    + "timeout fired, and stays away; the article has no way to leave its queue");
    static final Gate IN_CRITICAL_SECTION = new Gate("in-critical-section",
            "holding the mutex, after reading the protected counter and before writing it back");
    static final Gate HOLDER_CRASHES = new Gate("holder-crashes",
            "fault gate: a worker with a rule here crashes inside its critical section, holding the mutex, "
                    + "and never releases it");
    static final Gate BEFORE_RELEASE = new Gate("before-release",
            "done with the critical section, still holding the mutex");
    static final Gate RELEASE_REPEATED = new Gate("release-repeated",
            "fault gate: a worker with a rule here sends its release a second time, as a client does when "
                    + "the reply to the first was lost");

    static final Strategy ARTICLE_MUTEX = new Strategy("article-mutex", "Article's mutex",
            "the article's lock: a counter, a FIFO list and PUBLISH wake-ups; nothing records who holds it, "
                    + "so a crashed holder, an unheard wake-up or a repeated release breaks it for good", true);
    static final Strategy ARTICLE_SEMAPHORE = new Strategy("article-semaphore", "Article's semaphore",
            "the article's counting semaphore with 2 permits: every lost permit shrinks it for good, every "
                    + "repeated release grows it", true);
    static final Strategy HARDENED_MUTEX = new Strategy("hardened-mutex", "Hardened mutex",
            "owner ids, leases renewed while the holder lives, grants recorded before the wake-up, "
                    + "waiters that leave the queue cleanly: every fault here costs at most one lease", false);
    static final Strategy HARDENED_SEMAPHORE = new Strategy("hardened-semaphore", "Hardened semaphore",
            "the hardened construct with 2 permits", false);

    public PrimitivesLab(Backends backends) {
        super(backends, new LabProfile("redis-primitives", "Redis mutex and semaphore",
                "Workers share a Redis mutex; crash its holder or waste a wake-up and the article's permit is gone.",
                SERVICES, List.of(ARTICLE_MUTEX, ARTICLE_SEMAPHORE, HARDENED_MUTEX, HARDENED_SEMAPHORE),
                List.of(BEFORE_ACQUIRE, WAITER_CRASHES, WAITER_VANISHES, WAITER_GIVES_UP, IN_CRITICAL_SECTION,
                HOLDER_CRASHES, BEFORE_RELEASE, RELEASE_REPEATED),
                new LabProfile.Crew("client", 4, 1, MOST_WORKERS), 20));
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return new PrimitivesScenario(backends.redis(), setup);
    }

    /** The mutex's holder and queue; a semaphore has several holders, which the server lane shows. */
    @Override
    public LabView view(Run run) {
        return new LockPanelsView(run, run.strategy().id().endsWith("mutex") ? List.of("mutex") : List.of());
    }
}
