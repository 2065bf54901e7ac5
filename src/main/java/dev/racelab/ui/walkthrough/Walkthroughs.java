package dev.racelab.ui.walkthrough;

import dev.racelab.labs.Labs;
import dev.racelab.walkthrough.Walkthrough;
import dev.racelab.walkthrough.WalkthroughReader;

import java.io.InputStream;
import java.nio.file.Path;

/**
 * The walkthroughs RaceLab brings, one per lab ({@code dev/racelab/walkthroughs/<lab>.walkthrough}),
 * and the ones a teacher opens from a file, read against the labs there are.
 */
public final class Walkthroughs {

    private final WalkthroughReader reader;

    private final Labs labs;

    public Walkthroughs(Labs labs) {
        this.labs = labs;
        this.reader = new WalkthroughReader(labs::find);
    }

    /** Lab {@code id}'s own walkthrough, or null if it has none. */
    public Walkthrough of(String id) throws WalkthroughReader.Problem {
        return of(id, null);
    }

    /** Lab {@code id}'s own walkthrough ({@code shown}: that lab, as the window has it, or null), or null if it has none. */
    public Walkthrough of(String id, dev.racelab.engine.lab.Lab shown) throws WalkthroughReader.Problem {
        if (id == null) {
            return null;
        }
        // A lab file may carry its own.
        if ((shown != null ? shown : labs.find(id).orElse(null)) instanceof dev.racelab.labs.file.FileLab file) {
            var text = file.file().walkthrough();
            return text == null ? null : reader.embedded(id, text.text(), text.line(), file);
        }
        String resource = "/dev/racelab/walkthroughs/" + id + ".walkthrough";
        try (InputStream in = Walkthroughs.class.getResourceAsStream(resource)) {
            return in == null ? null : reader.read(id + ".walkthrough", in);
        } catch (java.io.IOException e) {
            throw new WalkthroughReader.Problem(resource + ": cannot be read (" + e.getMessage() + ")");
        }
    }

    public Walkthrough read(Path file) throws WalkthroughReader.Problem {
        return reader.read(file);
    }
}
