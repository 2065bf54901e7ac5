package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Confined sandboxes for specs run one after another ({@code racelab isolation}'s lanes), made
 * ahead and dropped behind on threads of their own, so that a lane waits for neither a {@code
 * CREATE DATABASE} nor a {@code DROP DATABASE}: in a data directory where thousands of databases
 * came and went, one {@code CREATE DATABASE} takes a few hundred milliseconds of the server's CPU.
 * What is made ahead is a {@link SandboxBase} (a login, its scratch database, one login by it,
 * the database's digest as made), exactly what {@link SpecSandbox#open} would make for the spec;
 * the spec's own rights and roles are given when a lane takes it.
 *
 * <p>At most {@code ahead} are ready or being made, and never more than the specs that have not
 * yet started may need. Threads: {@code isolation-sandbox-ahead-N} make them, {@code
 * isolation-sandbox-behind-N} drop what the lanes hand back ({@link #dropLater}); the lanes call
 * {@link #take} and {@link #dropLater} from theirs. {@link #close} waits for both and drops what
 * was made and not taken.
 */
public final class SandboxSupply implements AutoCloseable {

    private final Postgres server;
    private final int sessions;
    private final int ahead;
    private final ExecutorService making;
    private final ExecutorService dropping;
    /** Bases ready or being made, oldest first. Guarded by itself. */
    private final Deque<Future<SandboxBase>> coming = new ArrayDeque<>();
    /** How many more bases may still be taken: the specs that have not yet asked for a sandbox. */
    private final AtomicInteger wanted;
    /** Where what stays on the server after a drop behind is said. */
    private final Consumer<String> warn;
    private volatile boolean leftBehind;
    private boolean closed;

    /**
     * Starts making {@code ahead} bases for up to {@code specs} specs, each login allowed {@code
     * sessions} sessions.
     *
     * @param warn told, from the dropping thread, what a drop behind left on the server
     */
    public SandboxSupply(Postgres server, int sessions, int ahead, int specs, Consumer<String> warn) {
        this.server = server;
        this.sessions = sessions;
        this.ahead = Math.max(1, ahead);
        this.wanted = new AtomicInteger(specs);
        this.warn = warn;
        AtomicInteger makers = new AtomicInteger();
        this.making = Executors.newFixedThreadPool(this.ahead, task -> daemon(task,
                "isolation-sandbox-ahead-" + makers.incrementAndGet()));
        AtomicInteger droppers = new AtomicInteger();
        this.dropping = Executors.newFixedThreadPool(this.ahead, task -> daemon(task,
                "isolation-sandbox-behind-" + droppers.incrementAndGet()));
        synchronized (coming) {
            refill();
        }
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Starts making bases until {@code ahead} are coming, or as many as the specs left may want. */
    private void refill() {
        while (!closed && coming.size() < Math.min(ahead, wanted.get())) {
            coming.add(making.submit(this::make));
        }
    }

    private SandboxBase make() throws SQLException, BackendException {
        try (Connection admin = server.control("isolation")) {
            SandboxBase base = SandboxBase.make(server, admin, SpecGrants.Rights.of(admin), sessions);
            base.lookAhead(server);
            return base;
        }
    }

    /**
     * Says that one more spec has started, whether it takes a base or runs in its lane's sandbox:
     * no more bases are made ahead than the specs not yet started may take.
     */
    public void specStarted() {
        wanted.decrementAndGet();
    }

    /**
     * The oldest base made ahead (waiting for it if it is still being made), for a spec with up to
     * {@code sessionsNeeded} sessions; null when none is coming, it could not be made, or it is
     * too old ({@link SpecSandbox#LEFTOVER_AFTER}), and the caller makes its own (which says what
     * is wrong, if anything is).
     */
    SandboxBase take(int sessionsNeeded) {
        Future<SandboxBase> next;
        synchronized (coming) {
            next = sessionsNeeded > sessions ? null : coming.poll();
            refill();
        }
        if (next == null) {
            return null;
        }
        try {
            SandboxBase base = next.get();
            if (System.nanoTime() - base.madeNanos > SpecSandbox.LEFTOVER_AFTER.toNanos() / 2) {
                dropWhenMade(next);
                return null;
            }
            return base;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            dropWhenMade(next);
            return null;
        } catch (ExecutionException | CancellationException e) {
            return null;
        }
    }

    /**
     * Drops {@code sandbox}, which no spec will use again, on the dropping thread. What stays on the
     * server goes to the warning and makes {@link #leftBehind} true.
     */
    public void dropLater(SpecSandbox sandbox) {
        dropping.execute(() -> {
            List<String> kept;
            try {
                kept = sandbox.release();
            } catch (RuntimeException e) {
                kept = List.of("a scratch database or role may stay on the server: " + e.getMessage());
            }
            if (!kept.isEmpty()) {
                leftBehind = true;
                kept.forEach(warn);
            }
        });
    }

    /** Whether a drop behind left something on the server (said as it happened). */
    public boolean leftBehind() {
        return leftBehind;
    }

    private void dropWhenMade(Future<SandboxBase> base) {
        dropping.execute(() -> {
            try {
                SandboxBase made = base.get();
                try (Connection admin = server.control("isolation")) {
                    made.drop(admin);
                }
            } catch (ExecutionException | CancellationException | SQLException e) {
                // Never made, or marked: the next spec run on this server drops it once its time has passed.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /**
     * Makes nothing more, drops what was made and not taken, and waits for every drop ({@link
     * #leftBehind} then says whether something stayed on the server).
     */
    @Override
    public void close() throws InterruptedException {
        List<Future<SandboxBase>> untaken;
        synchronized (coming) {
            closed = true;
            untaken = new ArrayList<>(coming);
            coming.clear();
        }
        untaken.forEach(this::dropWhenMade);
        making.shutdown();
        dropping.shutdown();
        boolean interrupted = false;
        for (ExecutorService pool : List.of(making, dropping)) {
            try {
                pool.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // Waited for still: no sandbox outlives the command. Said to the caller after.
                interrupted = true;
            }
        }
        if (interrupted) {
            throw new InterruptedException();
        }
    }
}
