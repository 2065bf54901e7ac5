package dev.racelab.labfile;

import dev.racelab.labfile.LabFile.Choice;
import dev.racelab.labfile.LabFile.When;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;

/**
 * Every variant of a lab file: one choice of each switch, numbered. A set of variants is a {@link
 * BitSet}, so {@link SessionReader} can tell, for each step, under which variants a value it uses
 * was captured before it, and refuse a step that would run where it was not. With more variants
 * than {@link #MOST} (many switches), it does not tell: every value counts as there.
 */
final class Variants {

    static final int MOST = 4_096;

    private final List<Choice> switches;
    private final int count;

    Variants(List<Choice> switches) {
        this.switches = List.copyOf(switches);
        long n = 1;
        for (Choice choice : switches) {
            n = Math.min(n * choice.choices().size(), MOST + 1);
        }
        this.count = (int) n;
    }

    /** Whether variants are told apart (not too many of them). */
    private boolean told() {
        return count <= MOST;
    }

    /** Every variant. */
    BitSet all() {
        BitSet all = new BitSet();
        all.set(0, told() ? count : 1);
        return all;
    }

    /** The variants where {@code when} holds; a null {@code when}: all. */
    BitSet where(When when) {
        if (when == null || !told()) {
            return all();
        }
        BitSet holds = new BitSet();
        for (int v = 0; v < count; v++) {
            if (when.runsWith(choiceIn(v, when.switchName()))) {
                holds.set(v);
            }
        }
        return holds;
    }

    /** Variant {@code v} as a message says it, naming only {@code switchNames}: {@code fix = decr}. */
    String describe(int v, Set<String> switchNames) {
        List<String> parts = new ArrayList<>();
        for (Choice choice : switches) {
            if (switchNames.contains(choice.name())) {
                parts.add(choice.name() + " = " + choiceIn(v, choice.name()));
            }
        }
        return String.join(" and ", parts);
    }

    private String choiceIn(int v, String switchName) {
        int rest = v;
        for (Choice choice : switches) {
            int size = choice.choices().size();
            if (choice.name().equals(switchName)) {
                return choice.choices().get(rest % size);
            }
            rest /= size;
        }
        throw new IllegalArgumentException("no switch " + switchName);
    }
}
