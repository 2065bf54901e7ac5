package dev.racelab.engine;

import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a gate does to a worker passing it: nothing, a fixed delay, a random delay drawn from a
 * range, and/or a breakpoint that halts the worker until it is stepped.
 *
 * @param minMillis  shortest delay
 * @param maxMillis  longest delay; equal to {@code minMillis} for a fixed delay
 * @param breakpoint whether the worker halts here before any delay
 */
public record GateRule(long minMillis, long maxMillis, boolean breakpoint) {

    /** The longest delay a gate accepts: ten minutes. */
    public static final long MAX_MILLIS = 600_000;
    /** A gate that does nothing. */
    public static final GateRule PASS = new GateRule(0, 0, false);
    /** A breakpoint without a delay. */
    public static final GateRule BREAKPOINT = new GateRule(0, 0, true);

    private static final Pattern DELAY = Pattern.compile("(\\d{1,9})(?:-(\\d{1,9}))?");

    public GateRule {
        if (minMillis < 0 || maxMillis < minMillis || maxMillis > MAX_MILLIS) {
            throw new IllegalArgumentException(
                    "a delay runs from 0 to " + MAX_MILLIS + " ms, low end first: " + minMillis + "-" + maxMillis);
        }
    }

    public static GateRule fixed(long millis) {
        return new GateRule(millis, millis, false);
    }

    public static GateRule range(long minMillis, long maxMillis) {
        return new GateRule(minMillis, maxMillis, false);
    }

    /**
     * Reads a delay as the command line and the gates table write it: {@code 5} or {@code 2-20}
     * (milliseconds).
     *
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public static GateRule parseDelay(String text) {
        Matcher m = DELAY.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a delay: write milliseconds, like 5, or a range, like 2-20");
        }
        long low = Long.parseLong(m.group(1));
        long high = m.group(2) == null ? low : Long.parseLong(m.group(2));
        if (high < low) {
            throw new IllegalArgumentException("'" + text + "' is an empty range: put the lower bound first");
        }
        if (high > MAX_MILLIS) {
            throw new IllegalArgumentException("'" + text + "' is too long: a delay is at most " + MAX_MILLIS + " ms");
        }
        return new GateRule(low, high, false);
    }

    public GateRule withBreakpoint(boolean on) {
        return new GateRule(minMillis, maxMillis, on);
    }

    public GateRule withDelay(GateRule delay) {
        return new GateRule(delay.minMillis, delay.maxMillis, breakpoint);
    }

    public boolean delays() {
        return maxMillis > 0;
    }

    public boolean isPass() {
        return !breakpoint && !delays();
    }

    /** The delay for one pass, drawn from {@code random} when this is a range. */
    public long drawNanos(SplittableRandom random) {
        long millis = minMillis == maxMillis ? minMillis : random.nextLong(minMillis, maxMillis + 1);
        return millis * 1_000_000L;
    }

    /** The delay as the command line writes it: {@code 5}, {@code 2-20}, or empty for none. */
    public String delayText() {
        if (!delays()) {
            return "";
        }
        return minMillis == maxMillis ? Long.toString(minMillis) : minMillis + "-" + maxMillis;
    }

    @Override
    public String toString() {
        String delay = delays() ? delayText() + " ms" : "";
        if (breakpoint) {
            return delay.isEmpty() ? "breakpoint" : "breakpoint, then " + delay;
        }
        return delay.isEmpty() ? "pass" : delay;
    }
}
