package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.engine.Switch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * From a resource's name to the key of its advisory lock. PostgreSQL's advisory locks take a
 * number, not a name; the source article turns names into numbers with a 32-bit string hash, and
 * two different names with the same hash then share one lock: their workers wait for each other
 * although they work on unrelated things. A 64-bit hash makes that as good as impossible for any
 * number of names a run uses; the two-key form ({@code pg_advisory_lock(int, int)}) keeps the
 * name's kind and number apart, which cannot collide for names of one kind.
 *
 * <p>Advisory locks belong to the whole database, not to a schema: two runs on one server that
 * locked "invoice-16741209" would lock each other out. So a run qualifies its names with its id
 * ({@code 3f9a…/invoice-16741209}), as an application serving many tenants qualifies them with the
 * tenant, and runs sharing a server never meet. The colliding pair still collides: the article's
 * hash of a common prefix and two names of equal length with equal hashes gives equal hashes.
 */
enum LockKeys implements Switch.Choice {

    /** The source article's: the name's 32-bit string hash, as one (bigint) key. */
    HASH32("hash32", "32-bit hash") {
        @Override
        AdvisoryKey of(String run, String resource) {
            return AdvisoryKey.of(articleHash(run + "/" + resource));
        }
    },
    /** The kind's 32-bit hash and the number, as the two keys of {@code pg_advisory_lock(int, int)}. */
    TWO_KEYS("two-keys", "Two keys") {
        @Override
        AdvisoryKey of(String run, String resource) {
            int dash = resource.lastIndexOf('-');
            return AdvisoryKey.of(articleHash(run + "/" + resource.substring(0, dash)),
                    Integer.parseInt(resource.substring(dash + 1)));
        }
    },
    /** The first eight bytes of the name's SHA-256, as one (bigint) key. */
    HASH64("hash64", "64-bit hash") {
        @Override
        AdvisoryKey of(String run, String resource) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256")
                        .digest((run + "/" + resource).getBytes(StandardCharsets.UTF_8));
                return AdvisoryKey.of(ByteBuffer.wrap(digest).getLong());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java has SHA-256", e);
            }
        }
    };

    /**
     * Two invoices whose names have the same 32-bit hash under the article's function (both
     * 1089335628). Found by computation: the article's hash is Java's {@code String.hashCode}, and
     * hashing 400,000 random invoice numbers of eight digits ("invoice-" + n) found this pair among
     * several, as the birthday bound says it would (some 77,000 names give even odds of a pair in
     * 2^32). {@code AdvisoryLockLabTest} checks that it collides, bare and qualified by a run.
     */
    static final String FIRST = "invoice-16741209";
    static final String SECOND = "invoice-87020913";

    private final String id;
    private final String title;

    LockKeys(String id, String title) {
        this.id = id;
        this.title = title;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String title() {
        return title;
    }

    /**
     * The key of {@code resource}'s lock in run {@code run}. Names are {@code kind-number}, as
     * {@code invoice-16741209}.
     */
    abstract AdvisoryKey of(String run, String resource);

    /** A key as one number, for an event's value: the bigint key, or the two keys as its high and low halves. */
    static long encode(AdvisoryKey key) {
        return key.twoKeys() ? (long) key.key1() << 32 | (key.key2() & 0xffff_ffffL) : key.key();
    }

    /** The key {@link #encode} made {@code value} of, in this derivation's form. */
    AdvisoryKey decode(long value) {
        return this == TWO_KEYS ? AdvisoryKey.of((int) (value >>> 32), (int) value) : AdvisoryKey.of(value);
    }

    /**
     * The source article's {@code hashStringToInt}, line for line: for each UTF-16 unit, {@code
     * hash = (hash << 5) - hash + unit}, kept to 32 bits. The same number as Java's
     * {@code String.hashCode}.
     */
    static int articleHash(String text) {
        int hash = 0;
        for (int i = 0; i < text.length(); i++) {
            hash = (hash << 5) - hash + text.charAt(i);
        }
        return hash;
    }

    /** Which resources the workers lock. */
    enum Resources implements Switch.Choice {
        /** Everyone works on one invoice: the workers contend, as the lock means them to. */
        ONE("one", "One invoice", List.of(FIRST)),
        /** Odd workers on one invoice, even ones on another whose 32-bit hash is the same. */
        COLLIDING("colliding", "Colliding pair", List.of(FIRST, SECOND));

        private final String id;
        private final String title;
        private final List<String> names;

        Resources(String id, String title, List<String> names) {
            this.id = id;
            this.title = title;
            this.names = names;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String title() {
            return title;
        }

        /** Every resource of a run. */
        List<String> names() {
            return names;
        }

        /** The resource worker {@code index} (0-based) works on: worker-1 the first, worker-2 the second, and so on round. */
        String of(int index) {
            return names.get(index % names.size());
        }
    }
}
