package dev.racelab.ui.look;

import dev.racelab.engine.view.Theme;
import javafx.scene.Scene;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Puts a {@link Theme} on the window: its colours as the scene's first stylesheet (a data URL
 * holding {@link Theme#css()}: the looked-up colours racelab.css uses), then racelab.css, and the
 * same colours for the canvases ({@link Palette}). Owned by the FX thread.
 */
public final class Themes {

    private static final String STYLES = Themes.class.getResource("/dev/racelab/ui/racelab.css").toExternalForm();

    private Themes() {
    }

    /** The theme's colours as a stylesheet URL. */
    public static String stylesheet(Theme theme) {
        return "data:text/css;base64," + Base64.getEncoder().encodeToString(theme.css().getBytes(StandardCharsets.UTF_8));
    }

    /** Dresses {@code scene} in {@code theme}, and makes it the canvases' colours too. */
    public static void apply(Scene scene, Theme theme) {
        Palette.use(theme);
        scene.getStylesheets().setAll(stylesheet(theme), STYLES);
    }

    /**
     * A window of the main window's ({@code owner}) that follows its looks: its theme, presenter
     * mode's high contrast, and its text size (presenter mode's included), as they change.
     */
    public static void follow(Scene scene, Scene owner) {
        javafx.beans.binding.Bindings.bindContent(scene.getStylesheets(), owner.getStylesheets());
        scene.getRoot().styleProperty().bind(owner.getRoot().styleProperty());
    }
}
