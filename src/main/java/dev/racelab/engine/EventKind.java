package dev.racelab.engine;

/**
 * What an {@link Event} says happened: the vocabulary of a recording.
 *
 * <p>Each kind is one row of the table the timeline, its legend and its hover text read: whether
 * the recorder keeps it when full, how it is drawn on a lane (a {@link Glyph} in an {@link Ink},
 * or not at all), what the legend calls it, and how its hover text reads. A lab that needs a new
 * kind of mark adds one row here and touches nothing in the window. Recordings store kinds by
 * name.
 *
 * <p>Kinds marked <em>kept</em> are never dropped when the recorder is full: the verdict, every
 * violation, and everything a recording needs to be read back (the actors, the user's changes to
 * the gates) must reach the record even after a million ordinary events.
 */
public enum EventKind {
    /**
     * A lane exists: {@code actor} is its id, {@code subject} its name, {@code value} the ordinal
     * of its {@link Actor.Kind} (by name in a recording). Every actor is announced before its
     * first other event.
     */
    ACTOR(true),
    /** The user pressed Run; the servers are being prepared. */
    RUN_PREPARING(true),
    /** The workers started; {@code subject} is the strategy, {@code value} the number of workers. */
    RUN_STARTED(true),
    /** The run was paused or resumed by the user ({@code value} 1 paused, 0 resumed). */
    RUN_PAUSED(true),
    /** The run is stopping: its workers are being released and closed. */
    RUN_STOPPING(true),
    /** The run ended; {@code subject} is the verdict's name. */
    RUN_ENDED(true),
    /** The user changed the gates during the run; {@code subject} is the new plan as {@link GatePlan#describe} writes it. */
    GATES(true),
    /** The user released the worker on this lane from its gate (step mode). */
    STEP(true),
    /** The user stretched every delay; {@code value} is the factor in thousandths (2000: twice as long). */
    SPEED(true),
    /** An actor changed state; {@code value} is the {@link ActorState} ordinal (by name in a recording), {@code subject} what it concerns. */
    STATE(false),
    /** A worker finished operation {@code value}. */
    OP_END(false),
    /** A worker read {@code value} from {@code subject}. */
    READ(false, Glyph.STROKE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "read " + subject + " = " + value;
        }

        @Override
        public String valueLabel(long value) {
            return "read " + value;
        }
    },
    /** A worker wrote {@code value} to {@code subject}. */
    WRITE(false, Glyph.STROKE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "wrote " + subject + " = " + value;
        }

        @Override
        public String valueLabel(long value) {
            return "wrote " + value;
        }
    },
    /** A token {@code value} was issued to the worker. */
    TOKEN(false, Glyph.DOT, Ink.TOKEN, "● token") {
        @Override
        public String describe(String subject, long value) {
            return "got " + (subject == null ? "token" : subject) + " " + value;
        }

        @Override
        public String valueLabel(long value) {
            return "#" + value;
        }

        @Override
        public boolean labelAbove() {
            return true;
        }
    },
    /** A write carrying token {@code value} was accepted. */
    WRITE_ACCEPTED(false, Glyph.TICK, Ink.SAFE, "✓ accepted") {
        @Override
        public String describe(String subject, long value) {
            return "write with token " + value + " accepted";
        }
    },
    /** A write carrying token {@code value} was rejected as stale. */
    WRITE_REJECTED(false, Glyph.RING, Ink.TEXT, "⊘ rejected") {
        @Override
        public String describe(String subject, long value) {
            return "write with token " + value + " rejected as stale";
        }
    },
    /** A job queue: job {@code value} was added to the queue {@code subject}. */
    JOB_ADDED(false, Glyph.STROKE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "added job " + value + (subject == null ? "" : " to " + subject);
        }
    },
    /** A job queue: the worker took job {@code value} to send it; {@code subject} says how (its claim). */
    JOB_TAKEN(false, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "took job " + value + (subject == null ? "" : ": " + subject);
        }
    },
    /** A job queue: the worker sent job {@code value} (its email went out). */
    JOB_SENT(false, Glyph.TICK, Ink.SAFE, "✓ sent") {
        @Override
        public String describe(String subject, long value) {
            return "sent job " + value;
        }
    },
    /** A job queue: a claim got {@code value} jobs, fewer than it found free; {@code subject} says how many. */
    SHORT_BATCH(false, Glyph.CIRCLE, Ink.WAITING, "○ short batch") {
        @Override
        public String describe(String subject, long value) {
            return "short batch: " + subject;
        }
    },
    /**
     * The lock called {@code subject} (a resource of the lab) is, on the server, the advisory lock
     * with key {@code value}: one bigint key, or two int keys as its high and low halves.
     */
    LOCK_KEY(false),
    /** A worker requested lock {@code subject}. */
    LOCK_REQUESTED(false),
    /** A worker was granted lock {@code subject}. */
    LOCK_ACQUIRED(false),
    /** A worker released lock {@code subject}. */
    LOCK_RELEASED(false),
    /** A worker was woken; {@code value} is the sequence number of the event that woke it, or -1. */
    WOKEN(false, null, Ink.HIGHLIGHT, "→ woke the next waiter"),
    /**
     * This worker's write replaced a write that should have stood: the one with sequence number
     * {@code value} (counter: a write it never saw, landed between its read and its write — a lost
     * update; fencing: a write with a newer token; job queue: the first email of a job this worker
     * sent again). The timeline draws an arrow from the overwriting write back to it.
     */
    OVERWROTE(false, null, Ink.RACE, "← back to the earlier write it clashes with"),
    /**
     * Two workers believe they hold the same lock at once: this one has just taken it, while
     * worker {@code value} (an actor id), whose lease ran out as it stood still, still acts as its
     * holder; {@code subject} says so in words.
     */
    TWO_HOLDERS(false, Glyph.BAR, Ink.TEXT, "┃ two holders") {
        @Override
        public String describe(String subject, long value) {
            return "two holders: " + subject;
        }
    },
    /** A transaction or an attempt was retried; {@code subject} says why. */
    RETRY(false, Glyph.CIRCLE, Ink.WAITING, "○ retry") {
        @Override
        public String describe(String subject, long value) {
            return "retry: " + subject;
        }
    },
    /**
     * A try for lock {@code subject} was refused and the worker gave its request up: another
     * session holds the lock ("still locked"); {@code value} is the backend pid of the session the
     * last try ran on. (A refused try the worker repeats is a {@link #RETRY}.)
     */
    LOCK_REFUSED(false, Glyph.RING, Ink.WAITING, "⊘ gave up: still locked") {
        @Override
        public String describe(String subject, long value) {
            return "gave up, still locked: " + subject;
        }
    },
    /**
     * An unlock of lock {@code subject} came back false: the session it ran on held no such lock
     * (PostgreSQL warns and releases nothing); {@code value} is that session's backend pid.
     */
    UNLOCK_FALSE(false, Glyph.RING, Ink.TEXT, "⊘ unlock returned false") {
        @Override
        public String describe(String subject, long value) {
            return "unlock returned false: " + subject;
        }
    },
    /**
     * A lock call met another resource's lock: their names give the same lock key {@code value},
     * so unrelated work contends; {@code subject} says whose.
     */
    KEY_COLLISION(false, Glyph.BAR, Ink.HIGHLIGHT, "┃ key collision") {
        @Override
        public String describe(String subject, long value) {
            return "key collision: " + subject;
        }
    },
    /** A connection was opened for the worker; {@code value} is the server's backend pid. */
    CONNECTED(false),
    /**
     * The write this worker recorded last on {@code subject} was the server's write number {@code
     * value} to it (1 for the first). Writes that commit on their own (autocommit) may reach the
     * log in another order than the server took them; this is the server's order.
     */
    WRITE_ORDER(false),
    /**
     * The read this worker recorded last on {@code subject} saw the server's write number {@code
     * value} to it (0: none yet): with {@link #WRITE_ORDER}, which writes a later write replaced
     * without seeing them, across a class's machines.
     */
    READ_ORDER(false),
    /** An invariant was broken here; {@code subject} names it, {@code value} says how much. */
    VIOLATION(true, Glyph.CROSS, Ink.RACE, "✕ violation") {
        @Override
        public String describe(String subject, long value) {
            return "✕ " + subject + " (" + value + ")";
        }
    },
    /** Something failed; {@code subject} is the message. */
    ERROR(true, Glyph.BAR, Ink.RACE, null) {
        @Override
        public String describe(String subject, long value) {
            return "error: " + subject;
        }
    },
    /**
     * A server lane: the server reports that worker {@code value} (an actor id) now holds
     * {@code subject}; a null subject means it holds nothing any more.
     */
    SERVER_HOLDS(false),
    /**
     * A server lane: the server reports that worker {@code value} (an actor id) now waits, for
     * what {@code subject} says ("for client-1: row lock"); a null subject means it waits no more.
     */
    SERVER_WAITS(false),
    /**
     * A server lane: locks held by sessions no worker owns now ("pool-4711 holds advisory lock
     * 42"), in one line, or null when there are none any more; {@code value} counts them. A lock
     * nobody owns is the one nobody will ever release.
     */
    SERVER_ORPHANS(false),
    /**
     * A server lane: its observer reads the server now. What the observer records on this lane
     * until the next sample is what this read saw, and holds from this sample's time; {@code
     * value} is the observer's period in microseconds (the time it means to leave between reads),
     * so a reader knows when the view lags.
     */
    SERVER_SAMPLE(false),
    /** A server lane: the server's own value of {@code subject} is {@code value}. */
    SERVER_VALUE(false) {
        @Override
        public String describe(String subject, long value) {
            return value == ServerObserver.NAME_ONLY ? subject : value == ServerObserver.GONE ? subject + ": no longer"
                    : subject + " = " + value;
        }
    },
    /** A session sent an isolation spec's step: {@code subject} is the step's name, a colon, and its SQL. */
    STEP_SENT(false, Glyph.STROKE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "sent " + subject;
        }
    },
    /**
     * A step's statement answered with rows: {@code subject} is the step's name, a newline, and
     * the table as PostgreSQL's test driver prints it; {@code value} counts the rows.
     */
    STEP_RESULT(false, Glyph.TICK, Ink.SAFE, "✓ rows") {
        @Override
        public String describe(String subject, long value) {
            int newline = subject == null ? -1 : subject.indexOf('\n');
            return (newline < 0 ? subject : subject.substring(0, newline)) + ": " + value + (value == 1 ? " row" : " rows");
        }
    },
    /** A step's statement failed: {@code subject} is the step's name, a colon, SQLSTATE and message. */
    STEP_FAILED(false, Glyph.RING, Ink.RACE, "⊘ SQL error") {
        @Override
        public String describe(String subject, long value) {
            return "failed " + subject;
        }
    },
    /** A note for the timeline's hover text. */
    NOTE(false, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return subject == null ? "note" : subject;
        }
    },
    // Notes a lab's view follows, each its own kind so that no view reads another's words; the
    // verdict's own (the cycle, the failure, the instant it measured at) are kept, as the verdict is.
    /** What a run is about, for its lab's panel: the spec, the order of its steps, what it should do. */
    ABOUT(false, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return subject == null ? "about" : subject;
        }
    },
    /** A worker's wait in a deadlock's cycle, named once judged: for what, held by whom ({@code value}: the holder's lane). */
    WAITS_FOR(true, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "deadlock: waits for " + subject;
        }
    },
    /** The run's failure in a line, on the run's lane once judged ({@code value}: how many workers it names). */
    DIAGNOSIS(true, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "failure: " + subject;
        }
    },
    /** The instant a verdict measured at, on the run's lane: what the record holds after it is not judged. */
    MEASURED(true, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return subject == null ? "measured for the verdict" : subject;
        }
    },
    /** A write that replaced one made with a fencing token ({@code value}: that token). */
    REPLACED(false, Glyph.NONE, Ink.TEXT, null) {
        @Override
        public String describe(String subject, long value) {
            return "replaced the price written with token " + value;
        }
    },
    /** A fault RaceLab inflicted on a server here (a primary killed or frozen, replication held); {@code subject} says which. */
    FAULT(false, Glyph.BAR, Ink.HIGHLIGHT, "┃ fault") {
        @Override
        public String describe(String subject, long value) {
            return "fault: " + subject;
        }
    };

    private final boolean kept;
    private final Glyph glyph;
    private final Ink ink;
    private final String legend;

    EventKind(boolean kept) {
        this(kept, null, Ink.TEXT, null);
    }

    EventKind(boolean kept, Glyph glyph, Ink ink, String legend) {
        this.kept = kept;
        this.glyph = glyph;
        this.ink = ink;
        this.legend = legend;
    }

    /** Whether the recorder keeps this kind even when it is full. */
    public boolean kept() {
        return kept;
    }

    /** Whether events of this kind are marks on their actor's lane (drawn, or at least hovered). */
    public boolean marked() {
        return glyph != null;
    }

    /** How a mark of this kind is drawn; null for kinds that are not marks. */
    public Glyph glyph() {
        return glyph;
    }

    /** The colour role of its mark. */
    public Ink ink() {
        return ink;
    }

    /**
     * The legend's words for its mark ("✓ accepted") or, for the kinds drawn as arrows between
     * lanes, for its arrow; null for kinds the legend leaves out.
     */
    public String legend() {
        return legend;
    }

    /**
     * The words the timeline writes beside this kind's mark when there is room, from its value (a
     * token's number, the value read or written), in the kind's ink; null for none.
     */
    public String valueLabel(long value) {
        return null;
    }

    /** Whether the {@link #valueLabel} goes above the mark (a token's number) rather than boxed below it. */
    public boolean labelAbove() {
        return false;
    }

    /**
     * Whether this kind is a note: words for the hover text ({@link #NOTE}) or a fact a lab's view
     * follows ({@link #ABOUT} … {@link #REPLACED}), never a mark drawn nor an instant in a trace.
     */
    public boolean note() {
        return this == NOTE || this == ABOUT || this == WAITS_FOR || this == DIAGNOSIS || this == MEASURED
                || this == REPLACED;
    }

    /** One line for the hover text of an event of this kind. */
    public String describe(String subject, long value) {
        return name().toLowerCase().replace('_', ' ') + (subject == null ? "" : " " + subject);
    }
}
