package dev.racelab.labs.primitives;

import dev.racelab.engine.Strategy;

/** Which construct the workers share, and whose version of it. */
enum PrimitivesStrategy implements Strategy {
    ARTICLE_MUTEX(About.broken("article-mutex", "Article's mutex",
            "the article's lock: a counter, a FIFO list and PUBLISH wake-ups; nothing records who holds it, "
                    + "so a crashed holder, an unheard wake-up or a repeated release breaks it for good"), false, 1),
    ARTICLE_SEMAPHORE(About.broken("article-semaphore", "Article's semaphore",
            "the article's counting semaphore with 2 permits: every lost permit shrinks it for good, every "
                    + "repeated release grows it"), false, 2),
    HARDENED_MUTEX(About.fix("hardened-mutex", "Hardened mutex",
            "owner ids, leases renewed while the holder lives, grants recorded before the wake-up, "
                    + "waiters that leave the queue cleanly: every fault here costs at most one lease"), true, 1),
    HARDENED_SEMAPHORE(About.fix("hardened-semaphore", "Hardened semaphore",
            "the hardened construct with 2 permits"), true, 2);

    private final About about;
    private final boolean hardened;
    private final int permits;

    PrimitivesStrategy(About about, boolean hardened, int permits) {
        this.about = about;
        this.hardened = hardened;
        this.permits = permits;
    }

    /** Whether the workers share the hardened construct (owner ids, leases) or the article's. */
    boolean hardened() {
        return hardened;
    }

    /** How many workers may hold it at once: 1 for the mutex, 2 for the semaphore. */
    int permits() {
        return permits;
    }

    /** What the workers share, as the lanes and panels call it. */
    String construct() {
        return permits == 1 ? "mutex" : "semaphore";
    }

    @Override
    public About about() {
        return about;
    }
}
