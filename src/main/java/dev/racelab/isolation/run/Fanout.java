package dev.racelab.isolation.run;

import dev.racelab.backend.wire.Notification;
import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.Session;

import java.util.List;

/** Several listeners as one: each is told everything, in the order given. */
final class Fanout implements IsolationListener {

    private final List<IsolationListener> listeners;

    Fanout(List<IsolationListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void unusedStep(String step) {
        listeners.forEach(l -> l.unusedStep(step));
    }

    @Override
    public void parsed(int sessions) {
        listeners.forEach(l -> l.parsed(sessions));
    }

    @Override
    public void permutationStarted(String names) {
        listeners.forEach(l -> l.permutationStarted(names));
    }

    @Override
    public void blockResult(WireResult result) {
        listeners.forEach(l -> l.blockResult(result));
    }

    @Override
    public void notice(Session session, ServerMessage notice) {
        listeners.forEach(l -> l.notice(session, notice));
    }

    @Override
    public void stepLaunched(LaunchedStep step) {
        listeners.forEach(l -> l.stepLaunched(step));
    }

    @Override
    public void stepWaiting(LaunchedStep step, List<String> blockedBy) {
        listeners.forEach(l -> l.stepWaiting(step, blockedBy));
    }

    @Override
    public void stepCompleted(LaunchedStep step, boolean afterWaiting) {
        listeners.forEach(l -> l.stepCompleted(step, afterWaiting));
    }

    @Override
    public void stepResult(LaunchedStep step, WireResult result) {
        listeners.forEach(l -> l.stepResult(step, result));
    }

    @Override
    public void notification(Session receiver, Notification notification, String sender) {
        listeners.forEach(l -> l.notification(receiver, notification, sender));
    }

    @Override
    public void problem(String text) {
        listeners.forEach(l -> l.problem(text));
    }

    @Override
    public void stepFinished(LaunchedStep step, char transaction) {
        listeners.forEach(l -> l.stepFinished(step, transaction));
    }

    @Override
    public void permutationFinished(String names) {
        listeners.forEach(l -> l.permutationFinished(names));
    }
}
