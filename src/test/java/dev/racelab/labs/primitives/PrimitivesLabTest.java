package dev.racelab.labs.primitives;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Redis primitives lab against a real Redis. Each fault is staged the same way, with
 * breakpoints: client-1 takes the mutex and halts inside it; client-2 joins the queue (and
 * halts at the fault gate when the fault is its own), then client-3 queues behind it; the fault
 * happens; client-1 goes on. The article's mutex and the hardened one get the very same schedule.
 */
@Tag("lab")
class PrimitivesLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * The timeout of runs of the article's constructs: a run that stops making progress is judged
     * STUCK when it runs out, so the tests whose verdict is STUCK take this long by nature (they
     * are tagged {@code slow}).
     */
    private static final Duration STALL = Duration.ofSeconds(2);
    /**
     * The timeout of runs of the hardened constructs, which wait quietly for a lease (a second) to
     * run out and must not be judged meanwhile, however busy the machine; a run that never ends
     * is still judged STUCK well within the test's wait.
     */
    private static final Duration LEASE_STALL = Duration.ofSeconds(10);
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;

    private static final Jedis PROBE = TestServers.redis().open("test:probe", 5_000);

    private final PrimitivesLab lab = new PrimitivesLab(TestServers.backends());
    /** The run the last staged fault happened in. */
    private Run staged;

    @AfterAll
    static void closeProbe() {
        PROBE.close();
    }

    private Run start(String strategy, GatePlan plan) {
        Run run = new Run(lab, lab.defaults().withStrategy(strategy).withWorkers(3).withOps(1)
                .withTimeout(strategy.startsWith("hardened") ? LEASE_STALL : STALL).withGates(plan), Clock.system());
        run.start();
        return run;
    }

    /** B and C wait at their first gate until the test lets them queue, in that order. */
    private static GatePlan holdBackBAndC(GatePlan plan) {
        return plan.with(PrimitivesLab.BEFORE_ACQUIRE.id(), B, GateRule.BREAKPOINT)
                .with(PrimitivesLab.BEFORE_ACQUIRE.id(), C, GateRule.BREAKPOINT);
    }

    private static long queued(Run run) {
        return PROBE.llen(new KeySpace(run.id()).key("mutex:queue"));
    }

    private static boolean lastStateIs(Run run, int worker, ActorState state) {
        ActorState last = null;
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.STATE && e.actor() == run.workerActor(worker)) {
                last = e.state();
            }
        }
        return last == state;
    }

    /** Lets B, then C, out of their first gate into the queue; A holds the mutex. */
    private static void queueBThenC(Run run, Gate bHaltsAt) throws Exception {
        assertEquals(PrimitivesLab.BEFORE_ACQUIRE, run.gates().awaitSettled(B, WAIT));
        assertEquals(PrimitivesLab.BEFORE_ACQUIRE, run.gates().awaitSettled(C, WAIT));
        run.step(B);
        if (bHaltsAt != null) {
            assertEquals(bHaltsAt, run.gates().awaitSettled(B, WAIT), "B is queued, at the fault gate");
        }
        Poll.until("B queued", () -> queued(run) == 1);
        run.step(C);
        Poll.until("C queued behind B", () -> queued(run) == 2);
    }

    /** Client-2 suffers {@code fault} while queued behind client-1, with client-3 queued behind it. */
    private Outcome waiterFault(String strategy, Gate fault, ActorState after) throws Exception {
        Run run = start(strategy, holdBackBAndC(GatePlan.NONE
                .with(PrimitivesLab.IN_CRITICAL_SECTION.id(), A, GateRule.BREAKPOINT)
                .with(fault.id(), B, GateRule.BREAKPOINT)));
        staged = run;
        assertEquals(PrimitivesLab.IN_CRITICAL_SECTION, run.gates().awaitSettled(A, WAIT), "A holds the mutex");
        queueBThenC(run, fault);
        run.step(B);
        Poll.until("the fault happened to B", () -> lastStateIs(run, B, after));
        run.gates().setPlan(GatePlan.NONE);
        return run.awaitOutcome(WAIT);
    }

    /** Client-1 halts at {@code haltAt} in its critical section, B and C queue, then {@code fault} applies. */
    private Outcome holderFault(String strategy, Gate haltAt, GatePlan fault) throws Exception {
        Run run = start(strategy, holdBackBAndC(GatePlan.NONE.with(haltAt.id(), A, GateRule.BREAKPOINT)));
        staged = run;
        assertEquals(haltAt, run.gates().awaitSettled(A, WAIT), "A holds the mutex");
        queueBThenC(run, null);
        run.gates().setPlan(fault);
        return run.awaitOutcome(WAIT);
    }

    private Outcome holderCrashes(String strategy) throws Exception {
        return holderFault(strategy, PrimitivesLab.HOLDER_CRASHES, GatePlan.NONE);
    }

    private Outcome releaseSentTwice(String strategy) throws Exception {
        return holderFault(strategy, PrimitivesLab.BEFORE_RELEASE, GatePlan.NONE
                .with(PrimitivesLab.RELEASE_REPEATED.id(), A, GateRule.fixed(1))
                .with(PrimitivesLab.IN_CRITICAL_SECTION.id(), GateRule.fixed(100)));
    }

    @Test
    void aDefaultRunOfTheArticlesMutexWithoutFaultsIsSafe() throws Exception {
        // The preset fault cleared, as Reset-then-clear or --delay holder-crashes=0@client-2 would.
        Run run = new Run(lab, lab.defaults().withGates(GatePlan.NONE), Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(80L, outcome.metrics().get("protectedCounter"), "4 clients × 20 increments, none lost");
    }

    // (b) A holder crashes.

    @Test
    @Tag("slow")
    void articleMutexWhoseHolderCrashesIsLostAndEveryoneWaitsForEver() throws Exception {
        Outcome outcome = holderCrashes("article-mutex");
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("1 permit lost — 2 workers wait for ever", outcome.headline());
        assertEquals(2L, outcome.violations().get(PrimitivesScenario.STUCK_WAITERS));
        assertTrue(outcome.explanation().contains("client-1 crashed holding the mutex"), outcome.explanation());

        LabView view = lab.view(staged.record().header());
        staged.recorder().snapshot().forEach(view::accept);
        Panel.Items mutex = (Panel.Items) view.panels().stream().filter(p -> p.title().equals("The mutex, as the workers know it"))
                .findFirst().orElseThrow();
        assertEquals(List.of("held by client-1, which crashed", "Redis records no holder: nobody can take it back",
                        "1. client-2 waits", "2. client-3 waits"),
                mutex.items().stream().map(Panel.Item::text).toList(), "the panel tells the banner's story");
    }

    @Test
    void hardenedMutexWhoseHolderCrashesComesBackWhenItsLeaseRunsOut() throws Exception {
        Outcome outcome = holderCrashes("hardened-mutex");
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("reclaimedLeases"));
        assertEquals(2L, outcome.metrics().get("protectedCounter"), "B and C both got their turn");
    }

    // (a) A wake-up goes to a waiter that no longer listens.

    @Test
    @Tag("slow")
    void articleMutexLosesThePermitWhoseWakeUpWentToAWaiterThatGaveUp() throws Exception {
        Outcome outcome = waiterFault("article-mutex", PrimitivesLab.WAITER_GIVES_UP, ActorState.IDLE);
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("1 permit lost — 1 worker waits for ever", outcome.headline());
        assertEquals(1L, outcome.metrics().get("wastedWakeUps"));
        assertEquals(0L, outcome.metrics().get("retriedReleases"), "PUBLISH counted B, so nothing was retried");
    }

    @Test
    void hardenedMutexLetsAWaiterThatGivesUpLeaveTheQueue() throws Exception {
        Outcome outcome = waiterFault("hardened-mutex", PrimitivesLab.WAITER_GIVES_UP, ActorState.IDLE);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(2L, outcome.metrics().get("protectedCounter"), "A and C");
    }

    @Test
    @Tag("slow")
    void articleMutexLosesThePermitWhoseWakeUpWentToAWaiterThatFroze() throws Exception {
        Outcome outcome = waiterFault("article-mutex", PrimitivesLab.WAITER_VANISHES, ActorState.FAILED);
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("1 permit lost — 1 worker waits for ever", outcome.headline());
    }

    @Test
    void hardenedMutexTakesBackTheGrantOfAWaiterThatFroze() throws Exception {
        Outcome outcome = waiterFault("hardened-mutex", PrimitivesLab.WAITER_VANISHES, ActorState.FAILED);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("reclaimedLeases"), "B's grant expired and went to C");
    }

    /** Where the article's retry does work: the waiter's connection is gone, PUBLISH says 0. */
    @Test
    void articleMutexSurvivesAWaiterThatCrashedThanksToItsRetry() throws Exception {
        Outcome outcome = waiterFault("article-mutex", PrimitivesLab.WAITER_CRASHES, ActorState.FAILED);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("retriedReleases"));
        assertEquals(2L, outcome.metrics().get("protectedCounter"));

        List<Event> events = staged.recorder().snapshot();
        Event released = events.stream().filter(e -> e.kind() == EventKind.LOCK_RELEASED
                && e.actor() == staged.workerActor(A)).findFirst().orElseThrow();
        assertTrue(events.stream().anyMatch(e -> e.kind() == EventKind.WOKEN && e.actor() == staged.workerActor(C)
                && e.value() == released.seq()), "C's wake-up points at A's release, for the timeline's arrow");
    }

    @Test
    void hardenedMutexSkipsAWaiterThatCrashed() throws Exception {
        Outcome outcome = waiterFault("hardened-mutex", PrimitivesLab.WAITER_CRASHES, ActorState.FAILED);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(0L, outcome.metrics().get("reclaimedLeases"), "at once, without a lease running out");
    }

    // Owners: a release sent twice.

    @Test
    void articleMutexReleasedTwiceLetsTwoWaitersIn() throws Exception {
        Outcome outcome = releaseSentTwice("article-mutex");
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("2 workers inside at once, 1 allowed", outcome.headline());
        assertEquals(1L, outcome.violations().get(PrimitivesScenario.OVERLAP));
        assertTrue(!outcome.places().isEmpty(), "the overlap is marked on the timeline");
    }

    @Test
    void hardenedMutexRefusesTheSecondRelease() throws Exception {
        Outcome outcome = releaseSentTwice("hardened-mutex");
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("refusedReleases"));
        assertEquals(1L, outcome.metrics().get("mostInside"));
    }

    /**
     * A crashes holding one of the semaphore's two permits; B and C, held back until then, take
     * turns on the one left, so none of their increments is lost. (Let go at once, B and C could
     * both be inside before A took its permit, as two permits allow, and lose an increment to each
     * other: a build under a heavy load saw 7.)
     */
    @Test
    void articleSemaphoreRunsOnWithOnePermitAfterItsHolderCrashed() throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy("article-semaphore").withWorkers(3).withOps(4)
                .withGates(holdBackBAndC(GatePlan.NONE.with(PrimitivesLab.HOLDER_CRASHES.id(), A, GateRule.fixed(1)))),
                Clock.system());
        run.start();
        Poll.until("A crashed holding its permit", () -> lastStateIs(run, A, ActorState.FAILED));
        run.setPlan(GatePlan.NONE);
        run.gates().resumeAll();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("1 permit lost for good", outcome.headline());
        assertEquals(8L, outcome.metrics().get("protectedCounter"), "B and C finished with the permit left");
        assertEquals(List.of(1L), List.of(outcome.violations().get(PrimitivesScenario.LOST)));
    }
}
