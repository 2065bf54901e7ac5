package dev.racelab.isolation.run;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.wire.Notification;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.Blocker;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.PermutationStep;
import dev.racelab.isolation.Session;
import dev.racelab.isolation.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs a spec's permutations on a real PostgreSQL by isolationtester's rules, on one thread: a
 * control connection for the spec's setup and teardown and for asking whether a step is blocked,
 * and one connection per session.
 *
 * <p>The rules (isolationtester.c, read for them): a step is sent once every earlier step of its
 * session has been reported complete and the step before it in the permutation is complete or
 * deemed waiting. A sent step is watched: whenever 10 ms pass with nothing from the server, the
 * control connection asks {@code pg_isolation_test_session_is_blocked}; if so, and nothing has
 * arrived meanwhile, the step is printed as {@code <waiting ...>} and the permutation moves on.
 * After each step, every waiting step is looked at again (without blocking), and reported {@code
 * <... completed>} once the server has answered it and its markers allow: {@code (*)} makes a step
 * wait at once; {@code (other)} holds its report while {@code other} runs; {@code (other notices
 * n)} until other's session has sent n more notices. A step still running after {@link
 * Options#stepTimeout} is cancelled ("isolationtester: canceling step …"); after twice that the
 * spec is given up.
 *
 * <p>Everything it sees goes to the {@link IsolationListener} in isolationtester's order. A runner
 * is used by one thread; {@link #close} may come from another and ends whatever it is waiting for.
 */
public final class SpecRunner implements AutoCloseable {

    /** isolationtester's lock-wait polling period. */
    private static final int POLL_MILLIS = 10;

    /**
     * @param stepTimeout  how long a step may run before it is cancelled (isolationtester: 360 s
     *                     by default, twice PG_TEST_TIMEOUT_DEFAULT); the spec is given up after twice this
     * @param findBlockers when a step is deemed waiting, also ask who holds it up (for the window);
     *                     the transcript does not change
     */
    public record Options(Duration stepTimeout, boolean findBlockers) {

        public static final Options DEFAULTS = new Options(Duration.ofSeconds(360), false);

        public Options withStepTimeout(Duration timeout) {
            return new Options(timeout, findBlockers);
        }

        public Options withFindBlockers(boolean on) {
            return new Options(stepTimeout, on);
        }
    }

    /** A session's connection and what isolationtester keeps of it. */
    private static final class Link {
        final Session session;
        final WireConnection connection;
        /** The step sent and not yet reported complete, or null. */
        Running active;
        int notices;

        Link(Session session, WireConnection connection) {
            this.session = session;
            this.connection = connection;
        }
    }

    /** A step sent in this permutation run, with the notice counts its markers wait for. */
    private static final class Running {
        final LaunchedStep launched;
        final int[] noticeTargets;

        Running(LaunchedStep launched, int blockers) {
            this.launched = launched;
            this.noticeTargets = new int[blockers];
        }

        PermutationStep entry() {
            return launched.entry();
        }
    }

    private final Spec spec;
    private final SpecSql sql;
    private final WireConnection control;
    private final List<Link> links;
    private final IsolationListener listener;
    private final Options options;
    private final SetupBlocks blocks;
    private LockWaits waits;
    /** Set when any session's notice arrives; isolationtester's {@code any_new_notice}. */
    private boolean anyNewNotice;
    /** Closed from another thread: what the runner does next fails instead of reporting a lost server. */
    private volatile boolean closed;

    private SpecRunner(Spec spec, SpecSql sql, WireConnection control, List<Link> links, IsolationListener listener,
                       Options options) {
        this.spec = spec;
        this.sql = sql;
        this.control = control;
        this.links = links;
        this.listener = listener;
        this.options = options;
        this.blocks = new SetupBlocks(sql, listener, options.stepTimeout().multipliedBy(2));
    }

    /**
     * Connects the control connection and one per session to the sandbox's scratch database, as
     * the sandbox's login, with the session environment PostgreSQL's test driver fixes ({@link
     * IsolationSettings}), after telling the listener about unused steps and the sessions, as
     * isolationtester does. The spec's SQL goes through the sandbox ({@link SpecSandbox#sql()}).
     *
     * @throws IsolationFailure if a connection fails (the message names which, and why)
     */
    public static SpecRunner connect(SpecSandbox sandbox, Spec spec, IsolationListener listener, Options options)
            throws IsolationFailure {
        PgAddress address = sandbox.sessions();
        String database = sandbox.database();
        spec.unusedSteps().forEach(listener::unusedStep);
        listener.parsed(spec.sessions().size());
        List<WireConnection> opened = new ArrayList<>();
        try {
            WireConnection control = IsolationSettings.connect(address, database, spec.name(), "control connection", 0);
            opened.add(control);
            List<Link> links = new ArrayList<>();
            for (int i = 0; i < spec.sessions().size(); i++) {
                Session session = spec.sessions().get(i);
                WireConnection c = IsolationSettings.connect(address, database, spec.name(), session.name(), i + 1);
                opened.add(c);
                links.add(new Link(session, c));
            }
            SpecRunner runner = new SpecRunner(spec, sandbox.sql(), control, links, listener, options);
            for (Link link : links) {
                link.connection.onNotice(notice -> {
                    listener.notice(link.session, notice);
                    link.notices++;
                    runner.anyNewNotice = true;
                });
            }
            Map<Integer, String> sessions = new LinkedHashMap<>();
            links.forEach(l -> sessions.put(l.connection.pid(), l.session.name()));
            runner.waits = LockWaits.prepare(control, sessions, options.findBlockers());
            return runner;
        } catch (WireException e) {
            opened.forEach(WireConnection::close);
            throw new IsolationFailure("preparing the lock-wait question failed: " + e.getMessage(), e);
        } catch (IsolationFailure | RuntimeException e) {
            opened.forEach(WireConnection::close);
            throw e;
        }
    }

    /** The server process of each session, by session name: for the window's lock lanes. */
    public Map<String, Integer> sessionPids() {
        Map<String, Integer> pids = new LinkedHashMap<>();
        links.forEach(l -> pids.put(l.session.name(), l.connection.pid()));
        return pids;
    }

    /** Runs every permutation the spec runs: its permutation lines, or every interleaving. */
    public void runAll() throws IsolationFailure {
        for (Permutation p : spec.permutations()) {
            run(p);
        }
    }

    /** Runs one permutation: setups, its steps by isolationtester's rules, teardowns. */
    public void run(Permutation permutation) throws IsolationFailure {
        PermutationRun run = begin(permutation);
        for (PermutationStep entry : permutation.steps()) {
            run.launch(entry);
        }
        run.finish();
    }

    /**
     * Starts a permutation: prints its line and runs the setups. The caller then {@linkplain
     * PermutationRun#launch launches} its steps (all of a permutation line's, or one at a time as
     * a user picks them) and {@linkplain PermutationRun#finish finishes} it.
     */
    public PermutationRun begin(Permutation permutation) throws IsolationFailure {
        return begin(permutation.names());
    }

    /**
     * Starts a permutation whose steps are not known beforehand (a user picks them one at a time);
     * {@code names} stands for its line in the "starting permutation" report.
     */
    public PermutationRun begin(String names) throws IsolationFailure {
        PermutationRun run = new PermutationRun(names);
        run.setUp();
        return run;
    }

    /** One run of a permutation, step by step. */
    public final class PermutationRun {

        private final String names;
        private final List<Running> waiting = new ArrayList<>();
        private int launched;

        private PermutationRun(String names) {
            this.names = names;
        }

        private void setUp() throws IsolationFailure {
            listener.permutationStarted(names);
            runSetups();
        }

        private void runSetups() throws IsolationFailure {
            for (String setup : spec.setups()) {
                WireResult r = blocks.run(control, setup, "setup");
                if (r != null && r.status() == WireResult.Status.TUPLES_OK) {
                    listener.blockResult(r);
                } else if (r != null && r.status() != WireResult.Status.COMMAND_OK) {
                    listener.problem("setup failed: " + r.problem());
                    throw new IsolationFailure("the setup failed: " + r.problemLine());
                }
            }
            for (Link link : links) {
                if (link.session.setup() == null) {
                    continue;
                }
                WireResult r = blocks.run(link.connection, link.session.setup(), "setup of session "
                        + link.session.name());
                if (r != null && r.status() == WireResult.Status.TUPLES_OK) {
                    listener.blockResult(r);
                } else if (r != null && r.status() != WireResult.Status.COMMAND_OK) {
                    listener.problem("setup of session " + link.session.name() + " failed: " + r.problem());
                    throw new IsolationFailure("the setup of session " + link.session.name() + " failed: "
                            + r.problemLine());
                }
            }
        }

        /** The steps sent so far and not yet reported complete, by session name. */
        public List<LaunchedStep> active() {
            return links.stream().filter(l -> l.active != null).map(l -> l.active.launched).toList();
        }

        /**
         * Sends {@code entry}'s step when isolationtester would: first waits for its session's
         * earlier step, if one is still out; returns once the step is complete or deemed waiting,
         * and every waiting step has been looked at again.
         */
        public void launch(PermutationStep entry) throws IsolationFailure {
            checkOpen();
            Link link = links.get(entry.step().session());
            if (link.active != null) {
                awaitSession(link);
            }
            try {
                link.connection.sendQuery(sql.step(entry.step().sql()));
            } catch (WireException e) {
                listener.problem("failed to send query for step " + entry.name() + ": " + e.getMessage() + "\n");
                throw new IsolationFailure("step " + entry.name() + " could not be sent: " + e.getMessage(), e);
            }
            Running running = new Running(new LaunchedStep(entry, launched++, link.session.name()),
                    entry.blockers().size());
            link.active = running;
            listener.stepLaunched(running.launched);
            for (int b = 0; b < entry.blockers().size(); b++) {
                if (entry.blockers().get(b) instanceof Blocker.AfterNotices notices) {
                    running.noticeTargets[b] = notices.count() + links.get(notices.step().session()).notices;
                }
            }
            boolean mustWait = tryComplete(running, true, false);
            tryCompleteWaiting(true);
            if (mustWait) {
                waiting.add(running);
            }
        }

        /** Waits for every step still out, then runs the teardowns. */
        public void finish() throws IsolationFailure {
            tryCompleteWaiting(false);
            if (!waiting.isEmpty()) {
                listener.problem("failed to complete permutation due to mutually-blocking steps\n");
                throw new IsolationFailure("steps " + waiting.stream().map(r -> r.launched.name())
                        .collect(Collectors.joining(", ")) + " block each other: the permutation cannot complete");
            }
            for (Link link : links) {
                if (link.session.teardown() == null) {
                    continue;
                }
                WireResult r = blocks.run(link.connection, link.session.teardown(), null);
                if (r != null && r.status() == WireResult.Status.TUPLES_OK) {
                    listener.blockResult(r);
                } else if (r != null && r.status() != WireResult.Status.COMMAND_OK) {
                    listener.problem("teardown of session " + link.session.name() + " failed: " + r.problem());
                }
            }
            if (spec.teardown() != null) {
                WireResult r = blocks.run(control, spec.teardown(), null);
                if (r != null && r.status() == WireResult.Status.TUPLES_OK) {
                    listener.blockResult(r);
                } else if (r != null && r.status() != WireResult.Status.COMMAND_OK) {
                    listener.problem("teardown failed: " + r.problem());
                }
            }
            listener.permutationFinished(names);
        }

        /** Whether session {@code index} has a step out (sent, not yet reported complete). */
        public boolean busy(int index) {
            return links.get(index).active != null;
        }

        /**
         * Looks at every waiting step again, without blocking, and reports those that are done:
         * for a caller that waits for a user between steps, so a step the server has finished
         * does not look blocked meanwhile. isolationtester does this only after each step it sends.
         */
        public void poll() throws IsolationFailure {
            checkOpen();
            tryCompleteWaiting(true);
        }

        /** The session must finish its earlier step first: wait for it, looking at the others meanwhile. */
        private void awaitSession(Link link) throws IsolationFailure {
            long started = System.nanoTime();
            while (link.active != null) {
                Running old = link.active;
                if (!tryComplete(old, false, true)) {
                    waiting.remove(old);
                }
                tryCompleteWaiting(true);
                if (link.active != null && System.nanoTime() - started > 2 * options.stepTimeout().toNanos()) {
                    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
                    listener.problem("step " + link.active.launched.name() + " timed out after " + seconds
                            + " seconds\n");
                    listener.problem("active steps are:" + links.stream().filter(l -> l.active != null)
                            .map(l -> " " + l.active.launched.name()).collect(Collectors.joining()) + "\n");
                    throw new IsolationFailure("step " + link.active.launched.name() + " did not finish within "
                            + seconds + " s");
                }
            }
        }

        /**
         * isolationtester's {@code try_complete_steps}: looks at every waiting step; while some
         * still wait under a marker and something changed (a step completed, a notice came),
         * looks again, so the order of the list does not decide the order of completions.
         */
        private void tryCompleteWaiting(boolean nonBlocking) throws IsolationFailure {
            boolean markerHeld;
            int before;
            do {
                anyNewNotice = false;
                before = waiting.size();
                markerHeld = false;
                int w = 0;
                while (w < waiting.size()) {
                    Running r = waiting.get(w);
                    if (tryComplete(r, nonBlocking, true)) {
                        markerHeld |= !r.entry().blockers().isEmpty();
                        w++;
                    } else {
                        waiting.remove(w);
                    }
                }
            } while (markerHeld && (waiting.size() < before || anyNewNotice));
        }

        /**
         * isolationtester's {@code try_complete_step}.
         *
         * @param nonBlocking return as soon as the server says the step waits for a lock
         * @param retry       the step was looked at before (so its "waiting" line is printed already)
         * @return true if the step is not complete (it waits, or a marker holds its report back)
         */
        private boolean tryComplete(Running running, boolean nonBlocking, boolean retry) throws IsolationFailure {
            checkOpen();
            PermutationStep entry = running.entry();
            Link link = links.get(entry.step().session());
            WireConnection c = link.connection;
            if (!retry && entry.blockers().stream().anyMatch(b -> b instanceof Blocker.Once)) {
                listener.stepWaiting(running.launched, List.of());
                return true;
            }
            long started = System.nanoTime();
            boolean canceled = false;
            try {
                while (c.isBusy()) {
                    if (c.awaitInput(POLL_MILLIS)) {
                        continue;
                    }
                    if (nonBlocking && waits.blocked(c.pid())) {
                        // Something may have come while the question was asked (a notice, the answer).
                        c.consumeInput();
                        if (!c.isBusy()) {
                            break;
                        }
                        if (!retry) {
                            listener.stepWaiting(running.launched, waits.blockers(c.pid()));
                        }
                        return true;
                    }
                    long waited = System.nanoTime() - started;
                    if (waited > options.stepTimeout().toNanos() && !canceled) {
                        if (c.cancel(LockWaits.CONTROL_BOUND)) {
                            listener.problem("isolationtester: canceling step " + entry.name() + " after "
                                    + waited / 1_000_000_000L + " seconds\n");
                            canceled = true;
                        } else {
                            listener.problem("PQcancel failed\n");
                        }
                    }
                    if (waited > 2 * options.stepTimeout().toNanos()) {
                        listener.problem("step " + entry.name() + " timed out after " + waited / 1_000_000_000L
                                + " seconds\n");
                        throw new IsolationFailure("step " + entry.name() + " did not finish within "
                                + waited / 1_000_000_000L + " s, even when cancelled");
                    }
                }
                checkOpen();
                if (markerHolds(running)) {
                    if (!retry) {
                        listener.stepWaiting(running.launched, List.of());
                    }
                    return true;
                }
                listener.stepCompleted(running.launched, retry);
                for (WireResult r = c.getResult(resultBound()); r != null; r = c.getResult(resultBound())) {
                    listener.stepResult(running.launched, r);
                }
                c.consumeInput();
                for (Notification n = c.nextNotification(); n != null; n = c.nextNotification()) {
                    listener.notification(link.session, n, waits.name(n.senderPid()));
                    c.consumeInput();
                }
                link.active = null;
                listener.stepFinished(running.launched, c.transactionStatus());
            } catch (WireException.Timeout e) {
                throw new IsolationFailure("step " + entry.name() + " did not answer within "
                        + resultBound().toSeconds() + " s", e);
            } catch (WireException e) {
                throw new IsolationFailure("step " + entry.name() + " failed: " + e.getMessage(), e);
            }
            return false;
        }

        private Duration resultBound() {
            return options.stepTimeout().multipliedBy(2);
        }

        /** isolationtester's {@code step_has_blocker}: a marker still holds the report back. */
        private boolean markerHolds(Running running) {
            List<Blocker> blockers = running.entry().blockers();
            for (int b = 0; b < blockers.size(); b++) {
                Blocker blocker = blockers.get(b);
                if (blocker instanceof Blocker.AfterStep after) {
                    Running other = links.get(after.step().session()).active;
                    if (other != null && other.entry().step() == after.step()) {
                        return true;
                    }
                } else if (blocker instanceof Blocker.AfterNotices notices) {
                    if (links.get(notices.step().session()).notices < running.noticeTargets[b]) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private void checkOpen() throws IsolationFailure {
        if (closed) {
            throw new IsolationFailure("stopped");
        }
    }

    /** Closes every connection; safe from another thread, which ends whatever the runner waits for. */
    @Override
    public void close() {
        closed = true;
        control.close();
        links.forEach(l -> l.connection.close());
    }
}
