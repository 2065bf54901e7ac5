package dev.racelab.ui.model;

import dev.racelab.engine.RunRecord;
import dev.racelab.engine.lab.Lab;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The last live run of each strategy that ended, per lab: kept whole, so showing one again needs
 * no server, and listed for the lab chosen in the lab's order of strategies (broken first).
 */
final class LastRunRecords {

    /** Per lab id, per strategy id. */
    private final Map<String, Map<String, RunRecord>> kept = new HashMap<>();
    private final ObservableList<RunRecord> ofLab = FXCollections.observableArrayList();
    private final ObservableList<RunRecord> shown = FXCollections.unmodifiableObservableList(ofLab);
    private Lab lab;

    void keep(RunRecord ended) {
        kept.computeIfAbsent(ended.header().lab(), id -> new LinkedHashMap<>()).put(ended.header().spec().strategy(), ended);
        show(lab);
    }

    /** Lists {@code chosen}'s last runs. */
    void show(Lab chosen) {
        lab = chosen;
        Map<String, RunRecord> runs = chosen == null ? Map.of() : kept.getOrDefault(chosen.id(), Map.of());
        ofLab.setAll(chosen == null ? List.of() : chosen.strategies().stream()
                .map(s -> runs.get(s.id())).filter(Objects::nonNull).toList());
    }

    ObservableList<RunRecord> list() {
        return shown;
    }
}
