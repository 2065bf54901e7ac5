package dev.racelab.labs.philosophers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who waits for whom: an edge for every worker waiting in a queue for a resource some other
 * worker holds. A cycle is a deadlock: nobody in it can go on until someone else in it does.
 * Built once, on the supervisor's thread, from what Redis holds.
 */
final class WaitForGraph {

    /** {@code waiter} waits for {@code resource}, which {@code holder} holds. */
    record Edge(String waiter, String resource, String holder) {
    }

    private final Map<String, List<Edge>> out = new LinkedHashMap<>();

    void waitsFor(String waiter, String resource, String holder) {
        if (!waiter.equals(holder)) {
            out.computeIfAbsent(waiter, w -> new ArrayList<>()).add(new Edge(waiter, resource, holder));
        }
    }

    /** Every edge, waiters in the order they were added. */
    List<Edge> edges() {
        List<Edge> all = new ArrayList<>();
        out.values().forEach(all::addAll);
        return all;
    }

    /**
     * A cycle, as its edges in order, starting with the waiter that comes first in {@code order};
     * empty when there is none.
     */
    List<Edge> cycle(Comparator<String> order) {
        Set<String> done = new HashSet<>();
        for (String start : out.keySet()) {
            List<Edge> path = new ArrayList<>();
            Map<String, Integer> onPath = new HashMap<>();
            List<Edge> found = search(start, path, onPath, done);
            if (!found.isEmpty()) {
                int first = 0;
                for (int i = 1; i < found.size(); i++) {
                    if (order.compare(found.get(i).waiter(), found.get(first).waiter()) < 0) {
                        first = i;
                    }
                }
                Collections.rotate(found, -first);
                return found;
            }
        }
        return List.of();
    }

    /** Depth-first from {@code node}; returns the cycle's edges when the path comes back on itself. */
    private List<Edge> search(String node, List<Edge> path, Map<String, Integer> onPath, Set<String> done) {
        if (onPath.containsKey(node)) {
            return new ArrayList<>(path.subList(onPath.get(node), path.size()));
        }
        if (!done.add(node)) {
            return List.of();
        }
        onPath.put(node, path.size());
        for (Edge edge : out.getOrDefault(node, List.of())) {
            path.add(edge);
            List<Edge> found = search(edge.holder(), path, onPath, done);
            if (!found.isEmpty()) {
                return found;
            }
            path.remove(path.size() - 1);
        }
        onPath.remove(node);
        return List.of();
    }
}
