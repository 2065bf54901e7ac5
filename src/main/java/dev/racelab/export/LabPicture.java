package dev.racelab.export;

import dev.racelab.engine.Event;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Theme;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.function.Function;

/** A lab's own picture (the counter row, the book, the philosophers' table) as it ended, as SVG or PNG. */
public final class LabPicture {

    /** The picture's size in its own pixels, about as the window's state column shows it. */
    public static final double WIDTH = 560;
    public static final double HEIGHT = 380;
    private static final double EM = 14;

    private LabPicture() {
    }

    /** Feeds every event of {@code record} to {@code view}, as the window does by the end of a run. */
    public static LabView fed(LabView view, RunRecord record) {
        for (Event event : record.events().upToNow()) {
            view.accept(event);
        }
        if (record.ended()) {
            view.concluded(record.outcome());
        }
        return view;
    }

    /**
     * Run {@code number} (1, 2, …) of {@code file} fed, as it is read, to the view {@code views} makes
     * of its header, then told the run's outcome: the lab's picture as the run ended.
     */
    public static LabView read(RecordingReader reader, Path file, int number, Function<RunHeader, LabView> views)
            throws RecordingException {
        LabView[] view = new LabView[1];
        OneRun run = OneRun.read(reader, file, number, header -> {
            view[0] = views.apply(header);
            return view[0]::accept;
        });
        if (view[0] != null && run.outcome() != null) {
            view[0].concluded(run.outcome());
        }
        return view[0];
    }

    public static void svg(LabView view, Theme theme, OutputStream out) throws IOException {
        SvgSketch svg = new SvgSketch(out, WIDTH, drawnHeight(view, theme), EM, theme);
        view.draw(svg);
        svg.finish();
    }

    public static void png(LabView view, Theme theme, double scale, OutputStream out) throws IOException {
        ImageSketch image = new ImageSketch(WIDTH, drawnHeight(view, theme), EM, scale, theme);
        view.draw(image);
        javax.imageio.ImageIO.write(image.image(), "png", out);
    }

    /**
     * How tall the picture is where it was drawn on: views draw from the top of the room they are
     * given, and a slide wants no empty band below. One sketch at scale 1 shows where the last
     * drawn row is.
     */
    static double drawnHeight(LabView view, Theme theme) {
        ImageSketch probe = new ImageSketch(WIDTH, HEIGHT, EM, 1, theme);
        view.draw(probe);
        java.awt.image.BufferedImage image = probe.image();
        int ground = image.getRGB(0, 0);
        for (int y = image.getHeight() - 1; y > 0; y--) {
            for (int x = 0; x < image.getWidth(); x++) {
                if (image.getRGB(x, y) != ground) {
                    return Math.min(HEIGHT, y + EM);
                }
            }
        }
        return HEIGHT;
    }
}
