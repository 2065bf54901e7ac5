package dev.racelab.record;

import java.math.BigDecimal;

/**
 * The recording file format: JSON lines, UTF-8, documented in {@code docs/recording-format.md}.
 *
 * <pre>
 * {"format":"racelab-recording","version":2}                           the opening line
 * {"type":"run","run":1,"lab":"counter","strategy":…,"gates":…,…}        per run: its header,
 * [seq, t, actor, "KIND", value, subject]                               one line per event,
 * {"type":"outcome","verdict":"RACE",…,"events":N,"droppedEvents":0}    and its outcome
 * {"type":"end","runs":1,"elapsedMs":…,"startupMs":…}                    the end line
 * </pre>
 *
 * <p>States, kinds of event and kinds of actor are written by name, never by number, so adding
 * one leaves older files meaning what they meant. A file is complete only with its end line; a
 * reader refuses anything less. A reader refuses a version newer than its own; a change that
 * older readers could not read raises {@link #VERSION}.
 *
 * <p>An event's {@code t} is in nanoseconds from the run's time origin ({@link
 * dev.racelab.engine.TimeOrigin}: its start) since version 2, so it is the time the window and the
 * exports show; before the run's start it is negative. Version 1 counted from the run's first
 * event. The reader hands over every run's events counted from its origin, whichever version.
 */
public final class RecordingFormat {

    /** The value of the opening line's {@code format}: what tells a recording from any other JSON. */
    public static final String MAGIC = "racelab-recording";
    /** The version this RaceLab writes, and the newest it reads. */
    public static final int VERSION = 2;
    /**
     * How many lanes a run may have: lane numbers run from 0 to 4095. A run has its own lane, one per
     * worker (a lab has at most 1,000) and a few for the servers; a reader refuses a lane past these,
     * which would otherwise cost every lane below it in a timeline.
     */
    public static final int MAX_LANES = 4096;
    /** How many runs a recording may hold: as many as one command runs. */
    public static final int MAX_RUNS = 10_000;
    /** The file name ending the window offers and the desktop associates with RaceLab. */
    public static final String EXTENSION = ".racelab";

    private RecordingFormat() {
    }

    /**
     * A metric as written: a number written with a point or an exponent comes back as {@code
     * Double} (so {@code 1.0} stays a {@code Double} equal to the one written), any other as {@code
     * Long}, or as {@code Double} past a long's range.
     */
    static Number number(String literal) {
        BigDecimal value = new BigDecimal(literal);
        if (literal.indexOf('.') < 0 && literal.indexOf('e') < 0 && literal.indexOf('E') < 0) {
            try {
                return value.longValueExact();
            } catch (ArithmeticException tooLarge) {
                return value.doubleValue();
            }
        }
        return value.doubleValue();
    }
}
