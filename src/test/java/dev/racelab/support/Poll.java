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
    public static void until(String what, BooleanSupplier condition) throws Exception {
        assertTrue(eventually(DEADLINE, condition::getAsBoolean), "never happened: " + what);
    }

    /** Polls {@code condition} until it holds or {@code timeout} passes; says whether it held. */
    public static boolean eventually(Duration timeout, Check condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.holds()) {
                return true;
            }
            Thread.sleep(5);
        }
        return condition.holds();
    }

    /** A condition that may ask a server, and so may throw. */
    @FunctionalInterface
    public interface Check {
        boolean holds() throws Exception;
    }
}
