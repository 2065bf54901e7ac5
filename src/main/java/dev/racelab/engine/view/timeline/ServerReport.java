package dev.racelab.engine.view.timeline;

import dev.racelab.engine.ServerObserver;

import dev.racelab.engine.Ink;
import dev.racelab.engine.Printable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one server lane reports now: who holds and who waits for what, locks nobody owns, its
 * values; and the label that says it, in words, kept to draw again after a gap in the reads. Owned
 * by its {@link TimelineModel}.
 *
 * <p>Bounded whatever a recording reports: each name is kept as an excerpt of at most {@link
 * #LONGEST_NAME} characters, only the {@link #MOST_VALUES} values reported last are kept, and a
 * label stops at {@link #LONGEST_LABEL} characters, its words taken only until then. So a lane
 * told of ever new values, or of thousands of workers holding things with long names, keeps and
 * writes per event a line a picture can show, not one that grows with what it was told.
 */
final class ServerReport {

    /** The most characters of a label: about what a lane of a picture, some 1,400 pixels wide, shows. */
    static final int LONGEST_LABEL = 240;
    /** The most characters kept of one name: a value's, what a worker holds or waits for, a worker's. */
    static final int LONGEST_NAME = 60;
    /** The most values a label names: those reported last; side by side, more would not fit its line. */
    static final int MOST_VALUES = 8;

    final Map<Integer, String> holds = new TreeMap<>();
    final Map<Integer, String> waits = new LinkedHashMap<>();
    /** The values reported last, by name, the least recently reported first: it gives way to a new name. */
    private final Map<String, Reported> values = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Reported> eldest) {
            return size() > MOST_VALUES;
        }
    };
    /** How many names of values have come so far: where a new one goes in the label. */
    private long named;
    /** Locks held by sessions no worker owns, in words, or null. */
    String orphans;
    long orphanCount;
    boolean flip;
    /** The label shown now, to draw it again after a gap in the reads. */
    String text;
    String shorter;
    Ink ink;

    /** A value as last reported, and its place in the label: the order in which names first came. */
    private record Reported(long value, long place) {
    }

    /** A name or subject as a label keeps it: at most {@link #LONGEST_NAME} characters, shown safely; null stays null. */
    static String words(String subject) {
        return subject == null ? null : Printable.excerpt(subject, LONGEST_NAME);
    }

    /** A whole report in words (the orphaned locks'), as a label keeps it: at most {@link #LONGEST_LABEL} characters. */
    static String sentence(String subject) {
        return subject == null ? null : Printable.excerpt(subject, LONGEST_LABEL);
    }

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

    /** What {@code worker} holds or waits for is now {@code subject} (null: nothing), already made {@link #words}. */
    void put(Map<Integer, String> map, int worker, String subject) {
        if (subject == null) {
            map.remove(worker);
        } else {
            map.put(worker, subject);
        }
    }

    /** {@code name} (kept as {@link #words}) is now {@code value}; past {@link #MOST_VALUES} names, the least recent goes. */
    void value(String name, long value) {
        String kept = words(name);
        if (value == ServerObserver.GONE) {
            values.remove(kept);
            return;
        }
        Reported before = values.get(kept);
        values.put(kept, new Reported(value, before == null ? named++ : before.place()));
    }

    /**
     * The values in words, in the order their names first came: "counter = 41 · sent = 32"; {@code
     * shorter}: one value alone (the lane's name says what it is), several each with its name
     * ("queued 0 · sent 32"): bare numbers side by side would say nothing on a projector.
     */
    String describeValues(boolean shorter) {
        Line line = new Line(" · ");
        boolean one = values.size() == 1;
        values.entrySet().stream().sorted(Comparator.comparingLong(entry -> entry.getValue().place()))
                .forEach(entry -> line.add(entry.getValue().value() == ServerObserver.NAME_ONLY ? entry.getKey()
                        : shorter ? (one ? "" : entry.getKey() + " ") + entry.getValue().value()
                        : entry.getKey() + " = " + entry.getValue().value()));
        return line.toString();
    }

    /** The label in words; {@code shorter}: names and counts only ("client-7 holds · 3 wait"). */
    String describe(TimelineModel model, boolean shorter) {
        Line parts = new Line(" · ");
        if (orphans != null) {
            parts.add(shorter ? orphanCount + (orphanCount == 1 ? " orphaned lock" : " orphaned locks") : orphans);
        }
        if (shorter && holds.size() > 1) {
            Line names = new Line(", ");
            for (int worker : holds.keySet()) {
                if (names.full()) {
                    break;
                }
                names.add(name(model, worker));
            }
            parts.add(names + " hold");
        } else {
            for (Map.Entry<Integer, String> hold : holds.entrySet()) {
                if (parts.full()) {
                    break;
                }
                parts.add(name(model, hold.getKey()) + " holds" + (shorter ? "" : " " + hold.getValue()));
            }
        }
        if (!waits.isEmpty()) {
            List<String> names = new ArrayList<>();
            for (int worker : waits.keySet()) {
                if (names.size() == 4) {
                    break;
                }
                names.add(name(model, worker));
            }
            parts.add(waits.size() == 1 ? names.get(0) + " waits"
                    : shorter ? waits.size() + " wait"
                    : waits.size() + " wait: " + String.join(", ", names) + (waits.size() > 4 ? ", …" : ""));
        }
        return parts.empty() ? (shorter ? "no locks" : "no lock held or awaited") : parts.toString();
    }

    private static String name(TimelineModel model, int worker) {
        return words(model.lane(worker).name);
    }

    /** Words joined into one line that takes no more once it is {@link #LONGEST_LABEL} long, and is cut there. */
    private static final class Line {
        private final StringBuilder text = new StringBuilder();
        private final String separator;

        Line(String separator) {
            this.separator = separator;
        }

        boolean full() {
            return text.length() >= LONGEST_LABEL;
        }

        boolean empty() {
            return text.isEmpty();
        }

        void add(String words) {
            if (!full()) {
                text.append(text.isEmpty() ? "" : separator).append(words);
            }
        }

        @Override
        public String toString() {
            return Printable.excerpt(text, LONGEST_LABEL);
        }
    }
}
