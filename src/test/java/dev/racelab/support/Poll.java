package dev.racelab.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Waiting in tests for something the servers or the workers do: poll a condition, with a deadline. */
public final class Poll {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private Poll() {
    }

    /** Polls {@code condition} every few milliseconds until it holds; fails naming {@code what} after 30 s. */
    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never happened: " + what);
            Thread.sleep(5);
        }
    }
}
