package dev.racelab.labs.support;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.Panel;

import java.util.ArrayList;
import java.util.List;

/**
 * The default view with a panel per mutex: who holds it and who waits for it in order, as the
 * workers know it, beside what Redis itself says on the server lane. A holder that crashed is
 * named as such, with what Redis records of it, so the panel and the verdict tell one story.
 */
public final class LockPanelsView extends DefaultView {

    private final List<String> mutexes;
    private final String crashedHolderInRedis;

    /**
     * @param crashedHolderInRedis what Redis records when a holder crashed, as one line under the
     *                             holder ("Redis records no holder: …")
     */
    public LockPanelsView(RunHeader header, List<String> mutexes, String crashedHolderInRedis) {
        super(header);
        this.mutexes = List.copyOf(mutexes);
        this.crashedHolderInRedis = crashedHolderInRedis;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>(super.panels());
        int at = Math.min(1, panels.size());
        for (String mutex : mutexes) {
            panels.add(at++, lockPanel(mutex));
        }
        return panels;
    }

    private Panel lockPanel(String mutex) {
        String title = "The " + mutex + ", as the workers know it";
        int holder = tracker.holder(mutex);
        if (holder < 0 || tracker.worker(holder).state() != ActorState.FAILED) {
            return tracker.lockPanel(title, mutex);
        }
        List<Panel.Item> items = new ArrayList<>();
        items.add(new Panel.Item("held by " + tracker.name(holder) + ", which crashed", Ink.FAILED));
        items.add(new Panel.Item(crashedHolderInRedis, Ink.RACE));
        int place = 1;
        for (int actor : tracker.waiting(mutex)) {
            items.add(new Panel.Item(place++ + ". " + tracker.name(actor) + " waits", Ink.WAITING));
        }
        return new Panel.Items(title, items, "free, nobody waiting");
    }
}
