package dev.racelab.engine.view.timeline;

import java.util.HashMap;
import java.util.Map;

/**
 * The words a timeline keeps, each kept once: a server lane says the same few sentences again and
 * again ("client-3 holds the counter row · 2 waiting", "server: waits for the counter row"), each
 * made anew for every change the server reports, and a million events made some 400,000 copies.
 * Bounded: past {@link #MOST} different texts it starts afresh, as a run that says that many
 * different things gains little from sharing them.
 *
 * <p>Owned by the thread that feeds the timeline.
 */
final class Words {

    private static final int MOST = 1 << 14;

    private final Map<String, String> kept = new HashMap<>();

    /** {@code text}, or the equal text already kept; null stays null. */
    String of(String text) {
        if (text == null) {
            return null;
        }
        String known = kept.putIfAbsent(text, text);
        if (known != null) {
            return known;
        }
        if (kept.size() > MOST) {
            kept.clear();
        }
        return text;
    }
}
