package dev.racelab.labs.readerswriters;

import dev.racelab.engine.Strategy;

/** How the monitor decides who gets in. */
enum ReadersWritersStrategy implements Strategy {
    READER_PREFERENCE(About.broken("reader-preference", "Readers first (article)",
            "the article's monitor: readers get in whenever no writer is writing, so a steady stream of readers "
                    + "keeps a writer waiting for as long as it lasts")),
    MESA_IF(About.broken("mesa-if", "Readers first, if not while",
            "the article's monitor with 'if' where it needs 'while': a woken writer does not check again, and a "
                    + "reader that slipped in after the signal reads while it writes")),
    WRITER_PREFERENCE(About.fix("writer-preference", "Writers first",
            "a waiting writer holds back new readers (hardened constructs): writers no longer starve, readers "
                    + "can instead")),
    FAIR(About.fix("fair", "Arrival order",
            "everyone first passes a turnstile, a FIFO mutex; a writer keeps it while waiting for the readers "
                    + "inside to leave, so readers who came later queue behind it (hardened constructs)"));

    private final About about;

    ReadersWritersStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }

    /** The broken strategies are the article's monitor, built from the article's constructs; the fixes use the hardened ones. */
    boolean articleConstructs() {
        return broken();
    }
}
