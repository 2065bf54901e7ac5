package dev.racelab.labs.support;

import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.Panel;

import java.util.ArrayList;
import java.util.List;

/**
 * The default view with a panel per mutex: who holds it and who waits for it in order, as the
 * workers report it, beside what Redis itself says on the server lane.
 */
public final class LockPanelsView extends DefaultView {

    private final List<String> mutexes;

    public LockPanelsView(RunHeader header, List<String> mutexes) {
        super(header);
        this.mutexes = List.copyOf(mutexes);
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>(super.panels());
        int at = Math.min(1, panels.size());
        for (String mutex : mutexes) {
            panels.add(at++, tracker.lockPanel("The " + mutex, mutex));
        }
        return panels;
    }
}
