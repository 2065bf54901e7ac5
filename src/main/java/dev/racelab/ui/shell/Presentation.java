package dev.racelab.ui.shell;

import dev.racelab.engine.view.Theme;
import dev.racelab.ui.model.Settings;
import dev.racelab.ui.look.Themes;
import dev.racelab.ui.state.StateColumn;
import dev.racelab.ui.timeline.TimelineView;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

import java.util.function.Consumer;

/**
 * How the window looks: the theme (light or dark, kept for the next start), the text's size, and
 * presenter mode — for a projector at the back of a room: text at least 1.6 times its size, the
 * theme's high-contrast form, the window arranged for a lesson (its layout's part, handed in), and
 * B blanking the screen. Off puts back the size as it was. Owned by the FX thread.
 */
public final class Presentation {

    private final Region window;
    private final Settings settings;
    private final TimelineView timeline;
    private final StateColumn stateColumn;
    private final TimelineLegend legend;
    /** Arranges the window's parts for presenter mode (true) or back (false). */
    private final Consumer<Boolean> arrange;
    private final BooleanProperty presenter = new SimpleBooleanProperty(this, "presenter");
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark");
    private final double baseFont = Font.getDefault().getSize();
    private double textScale = 1.0;
    private double scaleBeforePresenter = 1.0;

    Presentation(Region window, Settings settings, TimelineView timeline, StateColumn stateColumn,
            TimelineLegend legend, Consumer<Boolean> arrange) {
        this.window = window;
        this.settings = settings;
        this.timeline = timeline;
        this.stateColumn = stateColumn;
        this.legend = legend;
        this.arrange = arrange;
        dark.set(Theme.named(settings.get(Settings.THEME).orElse("light")).dark());
        presenter.addListener((o, was, on) -> presenterChanged(on));
        dark.addListener((o, was, on) -> {
            settings.put(Settings.THEME, on ? "dark" : "light");
            applyTheme();
        });
        window.sceneProperty().addListener((o, was, scene) -> {
            if (scene != null) {
                scene.heightProperty().addListener((h, before, after) -> {
                    if (presenter.get()) {
                        applyTextScale(presenterScale());
                    }
                });
            }
        });
        settings.get(Settings.TEXT_SCALE).ifPresent(scale -> {
            try {
                setTextScale(Double.parseDouble(scale));
            } catch (NumberFormatException ignored) {
                // A hand-edited file: keep the system size.
            }
        });
    }

    /** Presenter mode, on or off: View ▸ Presenter mode binds to it. */
    BooleanProperty presenter() {
        return presenter;
    }

    /** The dark theme chosen (else the light one): View ▸ Dark theme binds to it. */
    BooleanProperty dark() {
        return dark;
    }

    public void presenterMode(boolean on) {
        presenter.set(on);
    }

    public boolean presenterMode() {
        return presenter.get();
    }

    public void darkTheme(boolean on) {
        dark.set(on);
    }

    private void presenterChanged(boolean on) {
        if (on) {
            scaleBeforePresenter = textScale;
            applyTextScale(presenterScale());
        } else {
            applyTextScale(scaleBeforePresenter);
        }
        arrange.accept(on);
        applyTheme();
    }

    /**
     * Presenter mode's text size: 1.6 times the system's on a 1080-line screen, and the same share
     * of the screen's height on any other (what reads from the back of a room is text that is a
     * share of the projected picture), never smaller than the system's.
     */
    private double presenterScale() {
        double height = window.getScene() == null ? 1080 : window.getScene().getHeight();
        return Math.max(Math.max(1.0, scaleBeforePresenter), 1.6 * height / 1080);
    }

    /** The theme chosen, high-contrast in presenter mode, on the scene and every canvas. */
    private void applyTheme() {
        Theme theme = Theme.named(dark.get() ? "dark" : "light");
        if (window.getScene() == null) {
            return;
        }
        Themes.apply(window.getScene(), presenter.get() ? theme.highContrast() : theme);
        timeline.themeChanged();
        stateColumn.refreshNow();
        legend.redraw();
    }

    /** Blanks the screen (black), or brings it back: for a teacher who wants the room's eyes elsewhere. */
    public void blank() {
        if (window.getScene() == null) {
            return;
        }
        boolean blanking = window.isVisible();
        window.getScene().setFill(blanking ? Color.BLACK : Color.WHITE);
        window.setVisible(!blanking);
    }

    /** The text's size as a share of the system's. */
    double textScale() {
        return textScale;
    }

    /** Sets the text's size, kept for the next start (presenter mode's own size is not). */
    void setTextScale(double scale) {
        applyTextScale(scale);
        if (!presenter.get()) {
            settings.put(Settings.TEXT_SCALE, String.valueOf(textScale));
        }
    }

    private void applyTextScale(double scale) {
        textScale = Math.max(0.8, Math.min(2.5, scale));
        double size = Math.round(baseFont * textScale * 10) / 10.0;
        if (window.getScene() != null) {
            window.getScene().getRoot().setStyle("-fx-font-size: " + size + "px;");
        } else {
            window.setStyle("-fx-font-size: " + size + "px;");
        }
        timeline.setEm(size);
        stateColumn.setEm(size);
    }
}
