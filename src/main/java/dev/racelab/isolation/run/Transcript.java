package dev.racelab.isolation.run;

import dev.racelab.backend.wire.Notification;
import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.Session;

import java.util.List;
import java.util.function.Consumer;

/**
 * The run as isolationtester prints it, byte for byte: what its standard output and standard
 * error carry, in the order they are written (PostgreSQL's test driver sends both to the one
 * file the expected outputs are compared with).
 *
 * <pre>
 * Parsed test spec with 2 sessions
 *
 * starting permutation: s1a s2a s1b
 * step s1a: SELECT 1;
 * ?column?
 * --------
 *        1
 * (1 row)
 *
 * step s2a: UPDATE t SET x = 1; &lt;waiting ...&gt;
 * s1: NOTICE:  …
 * step s1b: COMMIT;
 * step s2a: &lt;... completed&gt;
 * ERROR:  could not serialize access due to concurrent update
 * </pre>
 */
public final class Transcript implements IsolationListener {

    private final StringBuilder text = new StringBuilder();
    private final Consumer<String> sink;

    /** A transcript kept in memory ({@link #text()}). */
    public Transcript() {
        this(piece -> { });
    }

    /** A transcript kept in memory and also handed, piece by piece as it is written, to {@code sink}. */
    public Transcript(Consumer<String> sink) {
        this.sink = sink;
    }

    /** Everything written so far. */
    public String text() {
        return text.toString();
    }

    private void write(String piece) {
        text.append(piece);
        sink.accept(piece);
    }

    @Override
    public void unusedStep(String step) {
        write("unused step name: " + step + "\n");
    }

    @Override
    public void parsed(int sessions) {
        write("Parsed test spec with " + sessions + " sessions\n");
    }

    @Override
    public void permutationStarted(String names) {
        write("\nstarting permutation: " + names + "\n");
    }

    @Override
    public void blockResult(WireResult result) {
        write(ResultTable.print(result.columns(), result.rows()));
    }

    @Override
    public void notice(Session session, ServerMessage notice) {
        write(session.name() + ": " + notice.asLibpqNotice());
    }

    @Override
    public void stepWaiting(LaunchedStep step, List<String> blockedBy) {
        write("step " + step.name() + ": " + step.step().sql() + " <waiting ...>\n");
    }

    @Override
    public void stepCompleted(LaunchedStep step, boolean afterWaiting) {
        write(afterWaiting ? "step " + step.name() + ": <... completed>\n"
                : "step " + step.name() + ": " + step.step().sql() + "\n");
    }

    @Override
    public void stepResult(LaunchedStep step, WireResult result) {
        switch (result.status()) {
            case COMMAND_OK, EMPTY_QUERY -> {
            }
            case TUPLES_OK -> write(ResultTable.print(result.columns(), result.rows()));
            case FATAL_ERROR -> write(result.error() != null && result.error().severity() != null
                    && result.error().message() != null ? result.error() + "\n" : result.text() + "\n");
            default -> write("unexpected result status: " + result.status().libpqName() + "\n");
        }
    }

    @Override
    public void notification(Session receiver, Notification notification, String sender) {
        write(receiver.name() + ": NOTIFY \"" + notification.channel() + "\" with payload \"" + notification.payload()
                + "\" from " + sender + "\n");
    }

    @Override
    public void problem(String problem) {
        write(problem);
    }
}
