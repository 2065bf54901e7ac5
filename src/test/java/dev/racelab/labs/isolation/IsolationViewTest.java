package dev.racelab.labs.isolation;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.view.Panel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The isolation lab's "Steps" panel, on events written by hand: steps are listed in the order the
 * conductor sent them, whatever order the sessions' threads recorded them in.
 */
@Tag("engine")
class IsolationViewTest {

    private int seq;

    private Event event(int actor, EventKind kind, String subject, long value) {
        return new Event(seq, seq++ * 1_000_000L, actor, kind, subject, value);
    }

    @Test
    void stepsAreListedInTheOrderTheyWereSentNotRecorded() {
        IsolationView view = new IsolationView(null);
        view.accept(event(1, EventKind.ACTOR, "left", Actor.Kind.WORKER.ordinal()));
        view.accept(event(2, EventKind.ACTOR, "right", Actor.Kind.WORKER.ordinal()));
        // right's r1 was sent first (0) and left's l1 after it (1), but left's thread recorded first.
        view.accept(event(1, EventKind.STEP_SENT, "l1: UPDATE c SET n = n + 1;", 1));
        view.accept(event(1, EventKind.STATE, null, ActorState.IDLE.ordinal()));
        view.accept(event(2, EventKind.STEP_SENT, "r1: UPDATE c SET n = n + 1;", 0));
        view.accept(event(2, EventKind.STATE, null, ActorState.IDLE.ordinal()));
        List<String> steps = view.panels().stream().filter(p -> p.title().equals("Steps"))
                .map(Panel.Items.class::cast).findFirst().orElseThrow().items().stream().map(Panel.Item::text).toList();
        assertEquals(List.of("right · r1: done", "left · l1: done"), steps);
    }
}
