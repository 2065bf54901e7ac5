package dev.racelab.backend;

import java.io.IOException;

/**
 * A first start's copy of the prepared cluster, on a thread of its own while the starting thread
 * unpacks the binaries: the two are independent, and each spends much of its time inflating or
 * waiting on the disk. {@link #await} waits for the copy to end, whatever interrupts the waiting
 * thread (a start that is called off must not remove the data folder while the copy still writes
 * to it; the copy itself asks the call-off between files), and says how it ended.
 */
final class ClusterCopy {

    /** What copies: {@code true} if a cluster was put in place, {@code false} if there is none to copy. */
    @FunctionalInterface
    interface Copy {
        boolean copy() throws IOException, CalledOff;
    }

    private final Thread thread;
    private volatile Throwable failure;

    private ClusterCopy(Copy copy) {
        thread = new Thread(() -> {
            try {
                copy.copy();
            } catch (IOException | CalledOff | RuntimeException | Error e) {
                failure = e;
            }
        }, "racelab-copy-cluster");
        thread.setDaemon(true);
    }

    /** Begins {@code copy} on its own thread. */
    static ClusterCopy begin(Copy copy) {
        ClusterCopy started = new ClusterCopy(copy);
        started.thread.start();
        return started;
    }

    /** Waits for the copy to end and throws what it threw; keeps an interrupt for the caller. */
    void await() throws IOException, CalledOff {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable thrown = failure;
        if (thrown instanceof IOException e) {
            throw e;
        } else if (thrown instanceof CalledOff e) {
            throw e;
        } else if (thrown instanceof RuntimeException e) {
            throw e;
        } else if (thrown instanceof Error e) {
            throw e;
        }
    }
}
