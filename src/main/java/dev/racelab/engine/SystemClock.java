package dev.racelab.engine;

import java.util.concurrent.TimeUnit;

/** The JVM's monotonic clock; {@link #sleep} parks the thread for the full duration. */
final class SystemClock implements Clock {

    static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {
    }

    @Override
    public long nanos() {
        return System.nanoTime();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }
}
