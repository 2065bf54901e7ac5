package dev.racelab.labs.jobqueue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the workers know of the jobs, to tell when a round is over: how many were added, how
 * often each was marked sent, which consumer (index) holds its claim, and who crashed.
 */
final class JobBook {
    final AtomicInteger added = new AtomicInteger();
    final AtomicIntegerArray marks;
    final AtomicIntegerArray holder;
    final AtomicIntegerArray crashed;
    /** Sequence number plus one of the event of each job's first send (0: not sent, or not recorded yet). */
    final AtomicLongArray firstSend;

    JobBook(int jobs, int workers) {
        firstSend = new AtomicLongArray(jobs + 1);
        marks = new AtomicIntegerArray(jobs + 1);
        holder = new AtomicIntegerArray(jobs + 1);
        crashed = new AtomicIntegerArray(workers);
    }

    /**
     * Whether the first {@code upTo} jobs are all added and each is sent, or (with no lease)
     * held by a consumer that crashed: nobody will ever send it then.
     */
    boolean settled(int upTo, boolean lease) {
        if (added.get() < upTo) {
            return false;
        }
        for (int id = 1; id <= upTo; id++) {
            if (marks.get(id) == 0 && (lease || holder.get(id) == 0 || crashed.get(holder.get(id)) == 0)) {
                return false;
            }
        }
        return true;
    }
}
