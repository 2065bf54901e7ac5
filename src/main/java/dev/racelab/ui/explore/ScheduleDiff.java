package dev.racelab.ui.explore;

import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Found;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

import java.util.List;

/**
 * The shrunk failure beside its nearest passing neighbour, passage by passage: the schedule that
 * ran the most passages in the same order before it went another way. Where they part, and every
 * passage after that differs, is marked. Owned by the FX thread.
 */
final class ScheduleDiff extends VBox {

    ScheduleDiff() {
        super(6);
        getStyleClass().add("schedule-diff");
        setId("schedule-diff");
    }

    /** Shows {@code failing} beside the passing schedule of {@code ran} nearest to it; nothing if none passed. */
    void show(Found failing, List<Found> ran) {
        getChildren().clear();
        Found neighbour = nearestPassing(failing, ran);
        List<String> fails = List.of(failing.interleaving().split(" · "));
        getChildren().add(row("fails", fails, neighbour == null ? List.of() : List.of(neighbour.interleaving()
                .split(" · ")), true));
        if (neighbour != null) {
            getChildren().add(row("passes", List.of(neighbour.interleaving().split(" · ")), fails, false));
        }
    }

    /** The passing schedule sharing the longest prefix with {@code failing}, then the most passages in place. */
    static Found nearestPassing(Found failing, List<Found> ran) {
        Found best = null;
        int bestPrefix = -1;
        int bestSame = -1;
        for (Found other : ran) {
            if (other.verdict() != Verdict.SAFE) {
                continue;
            }
            int prefix = 0;
            int same = 0;
            int n = Math.min(failing.schedule().size(), other.schedule().size());
            for (int i = 0; i < n; i++) {
                if (failing.schedule().at(i) == other.schedule().at(i)) {
                    same++;
                    if (prefix == i) {
                        prefix++;
                    }
                }
            }
            if (prefix > bestPrefix || prefix == bestPrefix && same > bestSame) {
                best = other;
                bestPrefix = prefix;
                bestSame = same;
            }
        }
        return best;
    }

    private static HBox row(String title, List<String> passages, List<String> other, boolean failing) {
        Label heading = new Label(title);
        heading.getStyleClass().add(failing ? "schedule-diff-fails" : "schedule-diff-passes");
        heading.setMinWidth(60);
        FlowPane chips = new FlowPane(4, 4);
        chips.setPrefWrapLength(1_000);
        boolean parted = false;
        for (int i = 0; i < passages.size(); i++) {
            Label chip = new Label(passages.get(i));
            chip.getStyleClass().add("schedule-passage");
            parted |= i >= other.size() || !passages.get(i).equals(other.get(i));
            if (parted && !other.isEmpty()) {
                chip.getStyleClass().add("schedule-passage-differs");
            }
            chips.getChildren().add(chip);
        }
        HBox row = new HBox(8, heading, chips);
        row.setAlignment(Pos.TOP_LEFT);
        return row;
    }
}
