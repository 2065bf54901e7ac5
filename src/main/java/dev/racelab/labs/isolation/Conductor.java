package dev.racelab.labs.isolation;

import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.PermutationStep;
import dev.racelab.isolation.Session;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.run.IsolationFailure;
import dev.racelab.isolation.run.IsolationListener;
import dev.racelab.isolation.run.LaunchedStep;
import dev.racelab.isolation.run.PermutationReport;
import dev.racelab.isolation.run.SpecRunner;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends the steps of one run of the isolation lab, on one thread of its own, by isolationtester's
 * rules ({@link SpecRunner}): the sessions' workers only say when they are ready for their next
 * step and show what happens to it on their lanes.
 *
 * <p><b>Why one thread.</b> Whether a step is reported waiting, and when a waiting step is
 * reported complete, depends on the order in which isolationtester looks at the connections; a
 * thread per session would decide that by scheduling. So the conductor does all the talking, and
 * each worker thread (which alone may record on its lane) follows its session through a mailbox.
 *
 * <p>A permutation: the conductor sends its steps in order, each once its session's worker has
 * passed its gate for it (so delays and step mode pace the playback; a worker ready at once costs
 * nothing), or at once if that session is still busy with its previous step, as isolationtester
 * then waits for it. By hand: whatever step a worker is released to, in the order they come. While
 * it waits for a worker (longer than a moment: a user stepping), it looks at waiting steps again,
 * so one the server has finished does not look blocked.
 *
 * <p>Threads: {@link #run} on the conductor's thread; {@link #ready}, {@link #scriptDone} and
 * {@link #mailbox} from the workers; {@link #stop} from anyone.
 */
final class Conductor implements IsolationListener {

    /** What a session's worker is told, in order. */
    sealed interface Update {
        record Launched(LaunchedStep step) implements Update {
        }

        record Waiting(LaunchedStep step, List<String> blockedBy) implements Update {
        }

        record Result(LaunchedStep step, WireResult result) implements Update {
        }

        record Notice(ServerMessage notice) implements Update {
        }

        record Finished(LaunchedStep step, char transaction) implements Update {
        }

        /** The run is over for this session (the conductor ended, or failed). */
        record End() implements Update {
        }
    }

    /** How long a worker may take to be ready before the conductor looks at waiting steps meanwhile. */
    private static final long PROMPT_MILLIS = 200;
    private static final long WORKERS_START_SECONDS = 30;

    private final Spec spec;
    private final Permutation permutation;
    private final boolean byHand;
    private final List<BlockingQueue<Update>> mailboxes = new ArrayList<>();
    /** Per session, the steps its worker goes through, made once: the worker and the conductor share these entries. */
    private final List<List<PermutationStep>> scripts = new ArrayList<>();
    private final BlockingQueue<Integer> readiness = new LinkedBlockingQueue<>();
    private final CountDownLatch started;
    private final AtomicInteger scriptsDone = new AtomicInteger();
    private final PermutationReport report = new PermutationReport();
    /** The sessions whose step the runner found waiting (blocked in the server), until it finishes. */
    private final Set<Integer> waiting = ConcurrentHashMap.newKeySet();
    private final List<String> problems = new ArrayList<>();
    private volatile SpecRunner runner;
    private volatile boolean stopped;
    private volatile boolean finished;
    private volatile IsolationFailure failure;

    /**
     * @param permutation the permutation to play; by hand, the one whose steps each session goes
     *                    through, in its own order, with the interleaving left to the user
     */
    Conductor(Spec spec, Permutation permutation, boolean byHand) {
        this.spec = spec;
        this.permutation = permutation;
        this.byHand = byHand;
        for (int i = 0; i < spec.sessions().size(); i++) {
            mailboxes.add(new LinkedBlockingQueue<>());
            int index = i;
            // By hand the markers go: they speak of the permutation's own order.
            scripts.add(permutation.steps().stream().filter(e -> e.step().session() == index)
                    .map(e -> byHand ? new PermutationStep(e.step()) : e).toList());
        }
        this.started = new CountDownLatch(spec.sessions().size());
    }

    void use(SpecRunner connected) {
        this.runner = connected;
    }

    /** The steps session {@code index}'s worker goes through: its entries in the permutation, or all its steps. */
    List<PermutationStep> script(int index) {
        return scripts.get(index);
    }

    BlockingQueue<Update> mailbox(int index) {
        return mailboxes.get(index);
    }

    /** A worker's thread has started: the conductor waits for all, so lanes see their steps from the first. */
    void workerStarted() {
        started.countDown();
    }

    /** Session {@code index}'s worker passed its gate and is ready for its next step. */
    void ready(int index) {
        readiness.add(index);
    }

    /** Session {@code index}'s worker has gone through its whole script. */
    void scriptDone() {
        scriptsDone.incrementAndGet();
    }

    PermutationReport report() {
        return report;
    }

    /** Whether every session's worker went through its whole script (else the run was stopped, or one failed). */
    boolean allScriptsDone() {
        return scriptsDone.get() == spec.sessions().size();
    }

    /** Whether the conductor got to the end (every step done, the teardowns run). */
    boolean finished() {
        return finished;
    }

    IsolationFailure failure() {
        return failure;
    }

    List<String> problems() {
        synchronized (problems) {
            return List.copyOf(problems);
        }
    }

    /** The conductor's thread: the whole run. A failure ends the run (the thread dies of it). */
    void run() {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WORKERS_START_SECONDS);
            while (!started.await(10, TimeUnit.MILLISECONDS)) {
                if (stopped) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IsolationFailure("the sessions' workers did not start within " + WORKERS_START_SECONDS
                            + " s");
                }
            }
            if (byHand) {
                byHand();
            } else {
                play();
            }
            finished = true;
        } catch (IsolationFailure e) {
            if (!stopped) {
                failure = e;
                throw new IllegalStateException(e.getMessage(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            mailboxes.forEach(box -> box.add(new Update.End()));
        }
    }

    private void play() throws IsolationFailure, InterruptedException {
        SpecRunner.PermutationRun run = runner.begin(permutation);
        int[] ready = new int[spec.sessions().size()];
        int[] launched = new int[spec.sessions().size()];
        for (PermutationStep entry : permutation.steps()) {
            int session = entry.step().session();
            long waitingSince = System.nanoTime();
            while (ready[session] <= launched[session] && !run.busy(session)) {
                Integer next = readiness.poll(10, TimeUnit.MILLISECONDS);
                if (next != null) {
                    ready[next]++;
                } else if (stopped) {
                    throw new IsolationFailure("stopped");
                } else if (System.nanoTime() - waitingSince > PROMPT_MILLIS * 1_000_000) {
                    run.poll();
                }
            }
            launched[session]++;
            run.launch(entry);
        }
        run.finish();
    }

    private void byHand() throws IsolationFailure, InterruptedException {
        SpecRunner.PermutationRun run = runner.begin("(by hand)");
        int sessions = spec.sessions().size();
        int[] sent = new int[sessions];
        while (true) {
            Integer next = readiness.poll(10, TimeUnit.MILLISECONDS);
            if (next != null) {
                run.launch(script(next).get(sent[next]++));
            } else if (stopped) {
                throw new IsolationFailure("stopped");
            } else {
                run.poll();
                if (scriptsDone.get() == sessions && run.active().isEmpty()) {
                    break;
                }
            }
        }
        run.finish();
    }

    /** Whether session {@code session}'s step waits in the server, as the runner last found (isolationtester's rule). */
    boolean waiting(int session) {
        return waiting.contains(session);
    }

    /** Ends the run from any thread: the conductor stops at its next look, and the runner's connections close. */
    void stop() {
        stopped = true;
        SpecRunner current = runner;
        if (current != null) {
            current.close();
        }
    }

    // ---- the runner's account, passed to each session's worker ----

    private void post(LaunchedStep step, Update update) {
        mailboxes.get(step.step().session()).add(update);
    }

    @Override
    public void permutationStarted(String names) {
        report.permutationStarted(names);
    }

    @Override
    public void notice(Session session, ServerMessage notice) {
        mailboxes.get(spec.sessions().indexOf(session)).add(new Update.Notice(notice));
    }

    @Override
    public void stepLaunched(LaunchedStep step) {
        report.stepLaunched(step);
        post(step, new Update.Launched(step));
    }

    @Override
    public void stepWaiting(LaunchedStep step, List<String> blockedBy) {
        waiting.add(step.step().session());
        report.stepWaiting(step, blockedBy);
        post(step, new Update.Waiting(step, blockedBy));
    }

    @Override
    public void stepResult(LaunchedStep step, WireResult result) {
        report.stepResult(step, result);
        post(step, new Update.Result(step, result));
    }

    @Override
    public void stepFinished(LaunchedStep step, char transaction) {
        waiting.remove(step.step().session());
        post(step, new Update.Finished(step, transaction));
    }

    @Override
    public void problem(String text) {
        report.problem(text);
        synchronized (problems) {
            problems.add(text.strip());
        }
    }

    @Override
    public void permutationFinished(String names) {
        report.permutationFinished(names);
    }
}
