package dev.racelab.engine.view;

import dev.racelab.engine.Ink;

import java.util.List;

/**
 * One box of the window's state column: what a lab wants students to see right now, as plain
 * data. The window lays panels out; labs only say what is in them.
 */
public sealed interface Panel permits Panel.Values, Panel.Items, Panel.Table {

    String title();

    /** Labelled values: the protected value, the current token, the expected count. */
    record Values(String title, List<Value> rows) implements Panel {
        public Values {
            rows = List.copyOf(rows);
        }
    }

    record Value(String label, String value, Ink ink) {
        public static Value of(String label, Object value) {
            return new Value(label, String.valueOf(value), Ink.TEXT);
        }
    }

    /** An ordered list: lock holders, a wait queue front first. */
    record Items(String title, List<Item> items, String whenEmpty) implements Panel {
        public Items {
            items = List.copyOf(items);
        }
    }

    record Item(String text, Ink ink) {
    }

    /** A small table: every worker's token, every philosopher's meals. */
    record Table(String title, List<String> columns, List<List<String>> rows) implements Panel {
        public Table {
            columns = List.copyOf(columns);
            rows = rows.stream().map(List::copyOf).toList();
        }
    }
}
