package dev.racelab.cli;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingWriter;

import java.io.PrintStream;

/**
 * What {@code racelab run} makes of each run of its batch as it ends: the recording's next run,
 * the summary's counts, a line per run (several runs, no sweep) or per delay of a sweep (once all
 * its runs ran), and what the exit code will say (every verdict the one expected; the first run
 * that failed with ERROR, in words). A recording that cannot be written finishes the batch: the
 * runs that ran are summed up, and {@link #unwritten} says why.
 */
final class BatchTally implements Batch.Progress {

    private final Lab lab;
    private final RunOptions options;
    private final Summary summary;
    private final RecordingWriter recording;
    private final PrintStream out;
    private final int planned;
    private Batch batch;
    private boolean allExpected = true;
    private String failed;
    private RecordingException unwritten;
    private Summary.Point point;
    private Long pointDelay;

    BatchTally(Lab lab, RunOptions options, Summary summary, RecordingWriter recording, PrintStream out, int planned) {
        this.lab = lab;
        this.options = options;
        this.summary = summary;
        this.recording = recording;
        this.out = out;
        this.planned = planned;
    }

    /** The batch to finish if the recording cannot be written. */
    BatchTally of(Batch ofBatch) {
        this.batch = ofBatch;
        return this;
    }

    @Override
    public void ran(int done, int total, Long delay, RunRecord record) {
        Outcome outcome = record.outcome();
        if (recording != null && unwritten == null) {
            try {
                recording.write(lab, record);
            } catch (RecordingException e) {
                unwritten = e;
                batch.finish();
            }
        }
        if (delay != null && !delay.equals(pointDelay)) {
            printPoint();
            point = summary.point(delay);
            pointDelay = delay;
        }
        summary.add(record);
        if (point != null) {
            point.add(outcome.verdict());
        }
        allExpected &= options.expect() == null || outcome.verdict() == options.expect();
        if (point == null && options.runs() > 1 && !options.json()) {
            out.printf("run %d/%d: %s%n", done, options.runs(), outcome.banner());
        }
        if (outcome.verdict() == Verdict.ERROR && failed == null) {
            failed = (planned > 1 ? "run " + done + " of " + planned + ": " : "")
                    + outcome.headline() + ": " + outcome.explanation();
        }
    }

    /** The batch is over: the last delay's line, if all its runs ran (not when a signal or a server ended it early). */
    void ended(boolean early) {
        if (!early && summary.runs() == planned) {
            printPoint();
        }
    }

    private void printPoint() {
        if (point != null && !options.json()) {
            out.println(point.line(options.sweep()));
        }
    }

    /** Whether every run ended with the verdict {@code --expect} named (or none was named). */
    boolean allExpected() {
        return allExpected;
    }

    /** The first run that ended ERROR, in words, or null. */
    String failed() {
        return failed;
    }

    /** Why the recording could not be written, or null. */
    RecordingException unwritten() {
        return unwritten;
    }
}
