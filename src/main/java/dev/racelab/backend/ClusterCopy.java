package dev.racelab.backend;

import dev.racelab.tasks.Background;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * A first start's copy of the prepared cluster, on a background thread while the starting thread
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

    private final Future<Boolean> copying;

    private ClusterCopy(Future<Boolean> copying) {
        this.copying = copying;
    }

    /** Begins {@code copy} on a background thread. */
    static ClusterCopy begin(Copy copy) {
        return new ClusterCopy(Background.call("racelab-copy-cluster", copy::copy));
    }

    /** Waits for the copy to end and throws what it threw; keeps an interrupt for the caller. */
    void await() throws IOException, CalledOff {
        boolean interrupted = false;
        Throwable thrown = null;
        while (true) {
            try {
                copying.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                thrown = e.getCause();
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (thrown instanceof IOException e) {
            throw e;
        } else if (thrown instanceof CalledOff e) {
            throw e;
        } else if (thrown instanceof RuntimeException e) {
            throw e;
        } else if (thrown instanceof Error e) {
            throw e;
        } else if (thrown != null) {
            throw new IllegalStateException("the cluster's copy failed", thrown);
        }
    }
}
