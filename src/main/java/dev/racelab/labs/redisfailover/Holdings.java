package dev.racelab.labs.redisfailover;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the clients believed and did, for the oracle: who held the lock from when to when and on
 * which server, the tokens each was handed, and what became of each write. Every method is called
 * by the clients' threads, under this object's lock.
 */
final class Holdings {

    /** One client's hold of the lock: on which server, with which token, from its grant to its release. */
    record Hold(String client, String server, long token, int order) {
    }

    private final Map<String, Hold> holding = new LinkedHashMap<>();
    private final List<Hold> everHeld = new ArrayList<>();
    private final Map<Long, String> tokens = new LinkedHashMap<>();
    private final List<String> twoHolders = new ArrayList<>();
    private final List<String> duplicates = new ArrayList<>();
    private final List<String> staleAccepted = new ArrayList<>();
    private final List<String> staleRejected = new ArrayList<>();
    private int granted;

    /**
     * {@code client} now believes it holds the lock, granted by {@code server}, with {@code token}
     * (0: none yet). Returns the clients that still believe they hold it too.
     */
    synchronized List<String> acquired(String client, String server, long token) {
        List<String> others = new ArrayList<>(holding.keySet());
        Hold hold = new Hold(client, server, token, ++granted);
        holding.put(client, hold);
        everHeld.add(hold);
        for (String other : others) {
            twoHolders.add(other + " (on " + holding.get(other).server() + ") and " + client + " (on " + server + ")");
        }
        return others;
    }

    /** {@code client} was handed {@code token}; returns who was handed it before, if anyone. */
    synchronized String token(String client, long token) {
        Hold hold = holding.get(client);
        if (hold != null) {
            holding.put(client, new Hold(client, hold.server(), token, hold.order()));
        }
        String before = tokens.putIfAbsent(token, client);
        if (before != null && !before.equals(client)) {
            duplicates.add("token " + token + " to " + before + " and " + client);
            return before;
        }
        return null;
    }

    /** Whether {@code client}'s hold is stale: someone was granted the lock after it. */
    synchronized boolean stale(String client) {
        Hold hold = holding.get(client);
        return hold != null && everHeld.stream().anyMatch(h -> h.order() > hold.order() && !h.client().equals(client));
    }

    /** {@code client}'s write was accepted or rejected; a stale one is counted either way. */
    synchronized void wrote(String client, boolean accepted, String replaced) {
        if (!stale(client)) {
            return;
        }
        Hold hold = holding.get(client);
        String words = client + "'s write (its lock from " + hold.server() + (hold.token() > 0 ? ", token "
                + hold.token() : "") + ")" + (replaced.isEmpty() ? "" : " after " + replaced + "'s");
        (accepted ? staleAccepted : staleRejected).add(words);
    }

    synchronized void released(String client) {
        holding.remove(client);
    }

    synchronized List<String> twoHolders() {
        return List.copyOf(twoHolders);
    }

    synchronized List<String> duplicates() {
        return List.copyOf(duplicates);
    }

    synchronized List<String> staleAccepted() {
        return List.copyOf(staleAccepted);
    }

    synchronized List<String> staleRejected() {
        return List.copyOf(staleRejected);
    }
}
