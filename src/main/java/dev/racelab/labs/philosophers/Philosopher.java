package dev.racelab.labs.philosophers;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.redis.sync.HardenedSemaphore;
import dev.racelab.labs.redis.sync.Semaphore;
import dev.racelab.labs.redis.sync.SyncClient;
import dev.racelab.labs.support.SyncWorker;

import static dev.racelab.labs.support.RedisFixture.PATIENCE;

/**
 * One philosopher: each operation is one meal. It thinks, gets hungry, takes its forks the
 * strategy's way, eats and puts them down; every change of state is an event on its lane.
 *
 * <p>It knows nothing of the table beyond its own {@link Place}: the scenario lays the table and
 * hands each philosopher its forks; the oracle ({@link PhilosophersVerdict}) watches from the
 * events and from Redis. Runs on the philosopher's own worker thread.
 */
final class Philosopher extends SyncWorker {

    /**
     * What a philosopher finds at its place: the fork on its left and on its right, whether the
     * left one is the lower-numbered (for the ordered strategy), and, with a waiter, the seat it
     * must get before reaching for either (null without one).
     */
    record Place(HardenedSemaphore left, HardenedSemaphore right, boolean leftIsLower, Semaphore seat) {
    }

    private final PhilosophersStrategy strategy;
    private final HardenedSemaphore left;
    private final HardenedSemaphore right;
    private final boolean leftIsLower;
    private final Semaphore seat;
    /** The longest it thinks and eats, in ms, before any delay set at the gates ({@link #pause}). */
    private final int thinkMillis;
    private final int eatMillis;

    Philosopher(WorkerContext context, SyncClient client, PhilosophersStrategy strategy, Place place,
                int thinkMillis, int eatMillis) {
        super(context, client);
        this.strategy = strategy;
        this.left = place.left();
        this.right = place.right();
        this.leftIsLower = place.leftIsLower();
        this.seat = place.seat();
        this.thinkMillis = thinkMillis;
        this.eatMillis = eatMillis;
    }

    @Override
    public void operation(int meal) throws Exception {
        show(ActorState.THINKING);
        pause(thinkMillis);
        context.gate(PhilosophersLab.THINKING);
        show(ActorState.HUNGRY);
        if (seat != null) {
            take(seat);
        }
        try {
            switch (strategy) {
                case TRY_BACKOFF -> eatTryingAndBackingOff();
                case NAIVE, ORDERED, WAITER -> eatInOrder();
            }
        } finally {
            if (seat != null) {
                seat.release();
            }
        }
        show(ActorState.THINKING);
    }

    /** naive, ordered and waiter: take one fork, then the other, waiting as long as it takes. */
    private void eatInOrder() throws Exception {
        boolean leftFirst = strategy != PhilosophersStrategy.ORDERED || leftIsLower;
        Semaphore first = leftFirst ? left : right;
        Semaphore second = leftFirst ? right : left;
        take(first);
        try {
            show(ActorState.HOLDING, first.name());
            context.gate(PhilosophersLab.BETWEEN_FORKS);
            take(second);
            try {
                eat();
            } finally {
                second.release();
            }
        } finally {
            first.release();
        }
    }

    /**
     * try-backoff: left fork, then try the right; put the left back when the right is taken,
     * back off, and try again, for as long as it takes: a livelock or a starving philosopher is
     * the oracle's to name ({@link PhilosophersVerdict#waitingSince}), at the run's timeout.
     */
    private void eatTryingAndBackingOff() throws Exception {
        for (int tries = 1; !context.stopping(); tries++) {
            take(left);
            try {
                show(ActorState.HOLDING, left.name());
                context.gate(PhilosophersLab.BETWEEN_FORKS);
                if (right.tryAcquire()) {
                    try {
                        eat();
                    } finally {
                        right.release();
                    }
                    return;
                }
            } finally {
                left.release();
            }
            carryOn();
            context.mark(EventKind.RETRY, right.name() + " was taken: put " + left.name() + " back", tries);
            show(ActorState.HUNGRY);
            context.gate(PhilosophersLab.BACKOFF);
            // The back-off itself is the delay set at that gate; in a scheduled run the retry
            // waits for the schedule to let time pass, so a neighbour that can go on goes first.
            context.backOff(0);
        }
    }

    /**
     * Shows the philosopher {@code state}, while the run goes on. Stopping the run puts every
     * fork down, and a fork put down goes to whoever queues for it: the philosopher handed one
     * then must not be drawn holding it, nor eating, when nothing after the run began stopping
     * may look like its work (the verdict counts no such meal). It puts the forks down again.
     */
    private void show(ActorState state, String about) throws InterruptedException {
        carryOn();
        context.state(state, about);
    }

    private void show(ActorState state) throws InterruptedException {
        show(state, null);
    }

    /** Unwinds the meal, forks released on the way out, once the run is stopping. */
    private void carryOn() throws InterruptedException {
        if (context.stopping()) {
            throw new InterruptedException("the run is stopping");
        }
    }

    private void take(Semaphore semaphore) throws InterruptedException {
        if (!semaphore.acquireOrEnqueue()) {
            while (!semaphore.awaitTurn(PATIENCE)) {
                context.mark(EventKind.NOTE, "still waiting for " + semaphore.name(), 0);
            }
        }
    }

    private void eat() throws InterruptedException {
        show(ActorState.EATING);
        pause(eatMillis);
        context.gate(PhilosophersLab.EATING);
    }

    /**
     * Thinks or eats for a while drawn from the run's seed, so philosophers do not move in
     * lockstep; in a scheduled run the order alone decides, and the while is skipped.
     */
    private void pause(int most) throws InterruptedException {
        context.takeTime(context.random().nextInt(1, most + 1) * 1_000_000L);
    }
}
