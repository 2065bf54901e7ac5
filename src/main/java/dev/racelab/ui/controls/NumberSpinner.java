package dev.racelab.ui.controls;

import javafx.animation.PauseTransition;
import javafx.geometry.Bounds;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.Tooltip;
import javafx.util.Duration;
import javafx.util.StringConverter;

/**
 * A spinner of whole numbers in a range that never takes a typed value silently: a number out of
 * range is clamped and anything else is refused, and either way a note beside the spinner says what
 * it took ("Workers: from 1 to 64 — set to 64"). Committed on Enter and when it loses focus.
 */
public final class NumberSpinner extends Spinner<Integer> {

    public static final String STYLE = "number-spinner";
    private static final Duration NOTE_SHOWN = Duration.seconds(4);

    private final String what;
    private final String unit;
    private final Tooltip note = new Tooltip();
    private final PauseTransition noteTimer = new PauseTransition(NOTE_SHOWN);

    /**
     * @param what its name in the note: "Workers"
     * @param unit the unit after numbers in the note ("ms"), or empty
     */
    public NumberSpinner(String what, String unit) {
        this.what = what;
        this.unit = unit;
        getStyleClass().add(STYLE);
        setEditable(true);
        note.getStyleClass().add("correction-note");
        noteTimer.setOnFinished(e -> hideNote());
        // The spinner itself commits through the converter when it loses focus; Enter does the same here.
        getEditor().setOnAction(e -> commit());
        focusedProperty().addListener((o, was, is) -> {
            if (!is) {
                showValue();
            }
        });
    }

    /** Sets the range and the value, as a lab's limits change. */
    public void setRange(int min, int max, int value) {
        SpinnerValueFactory.IntegerSpinnerValueFactory factory =
                new SpinnerValueFactory.IntegerSpinnerValueFactory(min, max, Math.max(min, Math.min(max, value)));
        factory.setConverter(new Correcting(factory));
        setValueFactory(factory);
    }

    /** Shows {@code value} without any note, as when the session changed it. */
    public void show(int value) {
        if (getValueFactory() != null && !Integer.valueOf(value).equals(getValue())) {
            getValueFactory().setValue(value);
        }
    }

    /** Takes what is typed, corrected, and shows what was taken. */
    public void commit() {
        commitValue();
        showValue();
    }

    private void showValue() {
        if (getValueFactory() != null) {
            getEditor().setText(getValueFactory().getConverter().toString(getValue()));
        }
    }

    private void say(String text) {
        note.setText(text);
        if (!getStyleClass().contains("corrected")) {
            getStyleClass().add("corrected");
        }
        Bounds bounds = getScene() == null ? null : localToScreen(getBoundsInLocal());
        if (bounds != null) {
            note.show(this, bounds.getMinX(), bounds.getMaxY() + 2);
        }
        noteTimer.playFromStart();
    }

    private void hideNote() {
        note.hide();
        getStyleClass().remove("corrected");
    }

    private String numbers(long min, long max) {
        return "from " + min + " to " + max + (unit.isEmpty() ? "" : " " + unit);
    }

    /** Reads typed text: a number in range as it is, one out of range clamped, anything else refused. */
    private final class Correcting extends StringConverter<Integer> {

        private final SpinnerValueFactory.IntegerSpinnerValueFactory factory;

        Correcting(SpinnerValueFactory.IntegerSpinnerValueFactory factory) {
            this.factory = factory;
        }

        @Override
        public String toString(Integer value) {
            return value == null ? "" : value.toString();
        }

        @Override
        public Integer fromString(String text) {
            String typed = text == null ? "" : text.strip();
            long number;
            try {
                number = Long.parseLong(typed);
            } catch (NumberFormatException e) {
                if (!typed.equals(toString(factory.getValue()))) {
                    say(what + " takes a whole number " + numbers(factory.getMin(), factory.getMax()) + " — kept "
                            + factory.getValue());
                }
                return factory.getValue();
            }
            int taken = (int) Math.max(factory.getMin(), Math.min(factory.getMax(), number));
            if (taken != number) {
                say(what + ": " + numbers(factory.getMin(), factory.getMax()) + " — set to " + taken);
            } else {
                hideNote();
            }
            return taken;
        }
    }
}
