package dev.racelab.isolation.run;

import dev.racelab.backend.wire.Notification;
import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.Session;

import java.util.List;

/**
 * What happens as a spec runs, in the order isolationtester would print it: the {@link
 * Transcript} prints it, a {@link PermutationReport} sums it up, the window draws it. Called on
 * the runner's thread; a listener must not block.
 */
public interface IsolationListener {

    /** All of {@code listeners} as one, each told everything in the order given. */
    static IsolationListener all(IsolationListener... listeners) {
        return new Fanout(List.of(listeners));
    }

    /** Before anything: a step no permutation line uses (isolationtester warns, sorted by name). */
    default void unusedStep(String step) {
    }

    /** The sessions are about to connect. */
    default void parsed(int sessions) {
    }

    /** A permutation starts; {@code names} are its steps as its line lists them ("s1a s2a s1b"), or a label for one made by hand. */
    default void permutationStarted(String names) {
    }

    /** A result table of a setup or teardown block (of the spec, or of a session). */
    default void blockResult(WireResult result) {
    }

    /** A session's notice (also during its setup and teardown), the moment it is read. */
    default void notice(Session session, ServerMessage notice) {
    }

    /** A step's SQL was sent. */
    default void stepLaunched(LaunchedStep step) {
    }

    /**
     * A step is deemed waiting: the server says it is blocked (then {@code blockedBy} names the
     * sessions holding it up, when the runner was asked to find out), or a {@code (*)} marker, or
     * it finished but a marker holds back its report.
     */
    default void stepWaiting(LaunchedStep step, List<String> blockedBy) {
    }

    /** A step is reported complete: right away, or ({@code afterWaiting}) after it waited. */
    default void stepCompleted(LaunchedStep step, boolean afterWaiting) {
    }

    /** One of a completed step's results: a table, a command's tag, or an error. */
    default void stepResult(LaunchedStep step, WireResult result) {
    }

    /** A NOTIFY delivered to {@code receiver}, sent by {@code sender} (a session's name, or "PID n"). */
    default void notification(Session receiver, Notification notification, String sender) {
    }

    /**
     * What isolationtester writes to standard error, which its test driver folds into the same
     * output: a failed setup or teardown, a step timed out, a cancel. {@code text} ends with a
     * newline where isolationtester's does.
     */
    default void problem(String text) {
    }

    /**
     * A step's results and notifications are all told, and its session is free: {@code
     * transaction} is the session's transaction status now (I idle, T in a transaction, E in a
     * failed one).
     */
    default void stepFinished(LaunchedStep step, char transaction) {
    }

    default void permutationFinished(String names) {
    }
}
