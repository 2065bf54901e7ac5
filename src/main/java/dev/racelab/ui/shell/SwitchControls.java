package dev.racelab.ui.shell;

import dev.racelab.ui.controls.NumberSpinner;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.ui.model.Session;
import javafx.collections.FXCollections;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.util.StringConverter;

import java.util.ArrayList;
import java.util.List;

/**
 * The chosen lab's own switches as controls, bound to the session's {@link SwitchValues}: a
 * whole number as a {@link NumberSpinner} with its unit, a flag as a check box, a choice as a
 * drop-down; each control's tooltip carries the switch's description. Each control is
 * {@code #switch-NAME}. Empty and out of the layout for a lab without switches.
 */
public final class SwitchControls extends HBox {

    public static final String STYLE = "switch-controls";

    private final Session session;
    private final List<Shown> shown = new ArrayList<>();
    private boolean syncing;

    public SwitchControls(Session session) {
        super(8);
        this.session = session;
        getStyleClass().add(STYLE);
        setAlignment(Pos.CENTER_LEFT);
        managedProperty().bind(visibleProperty());
        session.switchesProperty().addListener((o, a, values) -> showValues(values));
        setVisible(false);
    }

    /** Builds the controls for {@code lab}'s switches. */
    public void showLab(Lab lab) {
        getChildren().clear();
        shown.clear();
        syncing = true;
        try {
            build(lab);
        } finally {
            syncing = false;
        }
        setVisible(!shown.isEmpty());
        showValues(session.switchesProperty().get());
    }

    private void build(Lab lab) {
        for (Switch<?> sw : lab.switches()) {
            Shown control = switch (sw.type()) {
                case INTEGER -> new IntegerSwitch(sw);
                case FLAG -> new FlagSwitch(sw);
                case CHOICE -> new ChoiceSwitch(sw);
            };
            control.control().setId("switch-" + sw.name());
            Tooltip tip = new Tooltip(tooltip(sw));
            tip.setWrapText(true);
            tip.setMaxWidth(420);
            control.control().setTooltip(tip);
            getChildren().addAll(control.nodes());
            shown.add(control);
        }
    }

    private static String tooltip(Switch<?> sw) {
        String text = sw.title() + ": " + sw.description() + ".";
        return switch (sw.type()) {
            case INTEGER -> text + "\n" + sw.name() + ", " + sw.accepted() + "; default " + sw.defaultText()
                    + (sw.unit().isEmpty() ? "" : " " + sw.unit()) + ".";
            case FLAG -> text + "\n" + sw.name() + "; default " + (Boolean.TRUE.equals(sw.defaultValue()) ? "on" : "off")
                    + ".";
            case CHOICE -> text + "\n" + sw.name() + ": " + sw.accepted() + "; default " + sw.defaultText() + ".";
        };
    }

    private void showValues(SwitchValues values) {
        syncing = true;
        try {
            for (Shown control : shown) {
                control.show(values);
            }
        } finally {
            syncing = false;
        }
    }

    /** Sets one switch from its text, as the command line writes it; the switch checks it. */
    private void set(Switch<?> sw, String text) {
        if (syncing) {
            return;
        }
        SwitchValues next = session.switchesProperty().get().parse(sw, text);
        if (!next.equals(session.switchesProperty().get())) {
            session.switchesProperty().set(next);
        }
    }

    /** One switch's control. */
    private interface Shown {
        Control control();

        List<Node> nodes();

        void show(SwitchValues values);
    }

    private final class IntegerSwitch implements Shown {
        private final Switch<?> sw;
        private final NumberSpinner spinner;

        IntegerSwitch(Switch<?> sw) {
            this.sw = sw;
            spinner = new NumberSpinner(sw.title(), sw.unit());
            spinner.setRange((int) sw.min(), (int) sw.max(), Integer.parseInt(sw.defaultText()));
            spinner.valueProperty().addListener((o, a, b) -> {
                if (b != null) {
                    set(sw, String.valueOf(b));
                }
            });
        }

        @Override
        public Control control() {
            return spinner;
        }

        @Override
        public List<Node> nodes() {
            Label title = new Label(sw.title());
            title.setLabelFor(spinner);
            return sw.unit().isEmpty() ? List.of(title, spinner) : List.of(title, spinner, new Label(sw.unit()));
        }

        @Override
        public void show(SwitchValues values) {
            spinner.show(Integer.parseInt(format(sw, values)));
        }
    }

    private final class FlagSwitch implements Shown {
        private final Switch<?> sw;
        private final CheckBox box;

        FlagSwitch(Switch<?> sw) {
            this.sw = sw;
            box = new CheckBox(sw.title());
            box.selectedProperty().addListener((o, a, on) -> set(sw, String.valueOf(on)));
        }

        @Override
        public Control control() {
            return box;
        }

        @Override
        public List<Node> nodes() {
            return List.of(box);
        }

        @Override
        public void show(SwitchValues values) {
            box.setSelected(Boolean.parseBoolean(format(sw, values)));
        }
    }

    private final class ChoiceSwitch implements Shown {
        private final Switch<?> sw;
        private final ComboBox<Switch.Choice> box;

        ChoiceSwitch(Switch<?> sw) {
            this.sw = sw;
            box = new ComboBox<>(FXCollections.observableList(sw.choices().stream()
                    .map(Switch.Choice.class::cast).toList()));
            box.setConverter(new StringConverter<>() {
                @Override
                public String toString(Switch.Choice choice) {
                    return choice == null ? "" : choice.title();
                }

                @Override
                public Switch.Choice fromString(String text) {
                    return box.getItems().stream().filter(c -> c.title().equals(text)).findFirst().orElse(null);
                }
            });
            box.valueProperty().addListener((o, a, choice) -> {
                if (choice != null) {
                    set(sw, choice.id());
                }
            });
        }

        @Override
        public Control control() {
            return box;
        }

        @Override
        public List<Node> nodes() {
            Label title = new Label(sw.title());
            title.setLabelFor(box);
            return List.of(title, box);
        }

        @Override
        public void show(SwitchValues values) {
            String id = format(sw, values);
            box.getItems().stream().filter(c -> c.id().equals(id)).findFirst().ifPresent(box::setValue);
        }
    }

    /** The switch's value in {@code values}, as text. */
    private static <T> String format(Switch<T> sw, SwitchValues values) {
        return sw.format(values.get(sw));
    }
}
