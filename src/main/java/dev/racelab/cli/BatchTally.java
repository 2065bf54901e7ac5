package dev.racelab.cli;

import dev.racelab.engine.Batch;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingWriter;

import java.io.PrintStream;
import java.util.function.Function;

/**
 * What {@code racelab run} makes of each run of its batch as it ends: the recording's next run,
 * the summary's counts, a line per run (several runs, no sweep) or per delay of a sweep (as soon as
 * all its runs ran, unless a server failed the last), whether a server failed the run (which ends
 * the batch: {@link #serverDown}), and what the exit code will say (every verdict the one
 * expected; the first run that failed with ERROR, in words). A recording that cannot be written
 * finishes the batch and ends what it prints; the command then says why ({@link #unwritten}).
 */
final class BatchTally implements Batch.Progress {

    private final Lab lab;
    private final RunOptions options;
    private final Summary summary;
    private final RecordingWriter recording;
    private final PrintStream out;
    private final int planned;
    private final Function<RunRecord, String> serverCheck;
    private Batch batch;
    private String serverDown;
    private boolean allExpected = true;
    private String failed;
    private RecordingException unwritten;
    private Summary.Point point;
    private Long pointDelay;

    /** {@code serverCheck}: a server that failed the run, in words, or null. */
    BatchTally(Lab lab, RunOptions options, Summary summary, RecordingWriter recording, PrintStream out, int planned,
               Function<RunRecord, String> serverCheck) {
        this.lab = lab;
        this.options = options;
        this.summary = summary;
        this.recording = recording;
        this.out = out;
        this.planned = planned;
        this.serverCheck = serverCheck;
    }

    /** The batch to finish if the recording cannot be written. */
    BatchTally of(Batch ofBatch) {
        this.batch = ofBatch;
        return this;
    }

    @Override
    public void ran(int done, int total, Long delay, RunRecord record) {
        if (unwritten != null) {
            return;
        }
        Outcome outcome = record.outcome();
        if (recording != null) {
            try {
                recording.write(lab, record);
            } catch (RecordingException e) {
                unwritten = e;
                batch.finish();
                return;
            }
        }
        if (delay != null && !delay.equals(pointDelay)) {
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
        serverDown = serverCheck.apply(record);
        if (outcome.verdict() == Verdict.ERROR && serverDown == null && failed == null) {
            failed = (planned > 1 ? "run " + done + " of " + planned + ": " : "")
                    + outcome.headline() + ": " + outcome.explanation();
        }
        if (point != null && point.runs() == options.runs() && serverDown == null && !options.json()) {
            out.println(point.line(options.sweep()));
        }
    }

    /** A server that failed the last run, in words, or null: what ends the batch ({@link Batch#endedBy}). */
    String serverDown() {
        return serverDown;
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
