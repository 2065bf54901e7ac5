package dev.racelab.labs.isolation;

import dev.racelab.backend.wire.WireResult;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.isolation.PermutationStep;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One session of a spec on its lane: before each of its steps it passes the gate {@code
 * next-step} (where step mode halts it), tells the {@link Conductor} it is ready, and then shows
 * what the conductor reports of that step: sent (running), waiting and for whom, its rows and
 * errors, and whether the session is left inside a transaction (holding its locks).
 */
final class IsolationWorker implements LabWorker {

    private static final long POLL_MILLIS = 100;

    private final WorkerContext context;
    private final Conductor conductor;
    private final List<PermutationStep> script;
    private final BlockingQueue<Conductor.Update> mailbox;
    private final List<Note> notes;
    /** Only a teaching spec says which outcome is an anomaly (its check step's {@code anomaly} column). */
    private final boolean teaching;
    private boolean done;

    /**
     * @param notes    what this lane notes before it starts (the first session's: which spec, which order)
     * @param teaching whether the spec is one of RaceLab's teaching specs: only those mark an anomaly
     */
    IsolationWorker(WorkerContext context, Conductor conductor, List<Note> notes, boolean teaching) {
        this.teaching = teaching;
        this.context = context;
        this.conductor = conductor;
        this.script = conductor.script(context.index());
        this.mailbox = conductor.mailbox(context.index());
        this.notes = List.copyOf(notes);
    }

    /** A line the lane notes before it starts: {@code ABOUT} for the lab's Spec panel, else a plain note. */
    record Note(EventKind kind, String text) {
        static Note about(String text) {
            return new Note(EventKind.ABOUT, text);
        }

        static Note plain(String text) {
            return new Note(EventKind.NOTE, text);
        }
    }

    @Override
    public void operation(int n) throws Exception {
        if (done) {
            return;
        }
        done = true;
        notes.forEach(note -> context.mark(note.kind(), note.text(), 0));
        conductor.workerStarted();
        context.state(ActorState.IDLE);
        for (PermutationStep entry : script) {
            context.gate(IsolationLab.NEXT_STEP);
            if (context.stopping()) {
                return;
            }
            conductor.ready(context.index());
            if (!follow(entry)) {
                return;
            }
        }
        conductor.scriptDone();
    }

    /** Shows {@code entry}'s fate; false if the run ended before it finished. */
    private boolean follow(PermutationStep entry) throws InterruptedException {
        while (true) {
            Conductor.Update update = mailbox.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
            if (update == null) {
                if (context.stopping()) {
                    return false;
                }
                continue;
            }
            if (update instanceof Conductor.Update.Launched launched) {
                context.state(ActorState.RUNNING, launched.step().name());
                context.mark(EventKind.STEP_SENT, launched.step().name() + ": " + launched.step().step().sql().strip(),
                        launched.step().position());
            } else if (update instanceof Conductor.Update.Waiting waiting) {
                context.state(ActorState.WAITING, waiting.blockedBy().isEmpty()
                        ? waiting.step().name() + " reported waiting (its marker)"
                        : waiting.step().name() + " blocked by " + String.join(", ", waiting.blockedBy()));
            } else if (update instanceof Conductor.Update.Result result) {
                show(result.step().name(), result.result());
            } else if (update instanceof Conductor.Update.Notice notice) {
                context.mark(EventKind.NOTE, notice.notice().asLibpqNotice().strip(), 0);
            } else if (update instanceof Conductor.Update.Finished finished) {
                char tx = finished.transaction();
                if (tx == 'I') {
                    context.state(ActorState.IDLE);
                } else {
                    context.state(ActorState.HOLDING, tx == 'T' ? "in a transaction" : "in a failed transaction");
                }
                if (finished.step().entry() == entry) {
                    return true;
                }
            } else if (update instanceof Conductor.Update.End) {
                return false;
            }
        }
    }

    private void show(String step, WireResult result) {
        switch (result.status()) {
            case TUPLES_OK -> {
                if (result.columns().isEmpty()) {
                    return;
                }
                context.mark(EventKind.STEP_RESULT, new StepTable(step, result.columns(), result.rows()).encode(),
                        result.rows().size());
                int anomaly = result.columns().indexOf("anomaly");
                if (teaching && step.equals("check") && anomaly >= 0 && result.rows().size() == 1
                        && "t".equals(result.rows().get(0).get(anomaly))) {
                    context.violation("anomaly", 1);
                }
            }
            case FATAL_ERROR -> context.mark(EventKind.STEP_FAILED, step + ": " + (result.error() == null
                    ? result.text().strip().lines().findFirst().orElse("connection lost")
                    : result.error().sqlState() + " " + result.error().message()), 0);
            default -> {
            }
        }
    }
}
