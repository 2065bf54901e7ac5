package dev.racelab.engine.view.timeline;

import dev.racelab.engine.Ink;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one server lane reports now: who holds and who waits for what, locks nobody owns, its
 * values; and the label that says it, in words, kept to draw again after a gap in the reads. Owned
 * by its {@link TimelineModel}.
 */
final class ServerReport {

    final Map<Integer, String> holds = new TreeMap<>();
    final Map<Integer, String> waits = new LinkedHashMap<>();
    final Map<String, Long> values = new LinkedHashMap<>();
    /** Locks held by sessions no worker owns, in words, or null. */
    String orphans;
    long orphanCount;
    boolean flip;
    /** The label shown now, to draw it again after a gap in the reads. */
    String text;
    String shorter;
    Ink ink;

    void show(Lane serverLane, long t, String text, String shorter, Ink ink) {
        this.text = text;
        this.shorter = shorter;
        this.ink = ink;
        serverLane.label(t, text, shorter, ink);
    }

    /** The workers this lane says hold or wait for something now. */
    List<Integer> workers() {
        List<Integer> workers = new ArrayList<>(holds.keySet());
        waits.keySet().stream().filter(w -> !holds.containsKey(w)).forEach(workers::add);
        return workers;
    }

    void put(Map<Integer, String> map, int worker, String subject) {
        if (subject == null) {
            map.remove(worker);
        } else {
            map.put(worker, subject);
        }
    }

    /** The label in words; {@code shorter}: names and counts only ("client-7 holds · 3 wait"). */
    String describe(TimelineModel model, boolean shorter) {
        List<String> parts = new ArrayList<>();
        if (orphans != null) {
            parts.add(shorter ? orphanCount + (orphanCount == 1 ? " orphaned lock" : " orphaned locks") : orphans);
        }
        if (shorter && holds.size() > 1) {
            List<String> names = new ArrayList<>();
            holds.keySet().forEach(worker -> names.add(model.lane(worker).name));
            parts.add(String.join(", ", names) + " hold");
        } else {
            holds.forEach((worker, what) -> parts.add(model.lane(worker).name + " holds" + (shorter ? "" : " " + what)));
        }
        if (!waits.isEmpty()) {
            List<String> names = new ArrayList<>();
            waits.keySet().forEach(worker -> names.add(model.lane(worker).name));
            parts.add(waits.size() == 1 ? names.get(0) + " waits"
                    : shorter ? waits.size() + " wait"
                    : waits.size() + " wait: " + String.join(", ", names.subList(0, Math.min(4, names.size())))
                            + (names.size() > 4 ? ", …" : ""));
        }
        return parts.isEmpty() ? (shorter ? "no locks" : "no lock held or awaited") : String.join(" · ", parts);
    }
}
