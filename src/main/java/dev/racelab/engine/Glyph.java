package dev.racelab.engine;

/**
 * The shapes a mark can take on a worker's lane. The window draws each shape once, as a small
 * bitmap; a new kind of mark picks one of these and needs no drawing code.
 */
public enum Glyph {
    /** Not drawn on the lane, but shown in the hover text of its place (notes). */
    NONE,
    /** A filled dot: a token handed out. */
    DOT,
    /** A tick: something accepted. */
    TICK,
    /** A ring with a stroke through: something refused. */
    RING,
    /** A cross: a violation. Never thinned away. */
    CROSS,
    /** An open circle: a retry. */
    CIRCLE,
    /** A short line in the lower part of the lane: a read or a write. */
    STROKE,
    /** A bar through the whole lane: an error. */
    BAR
}
