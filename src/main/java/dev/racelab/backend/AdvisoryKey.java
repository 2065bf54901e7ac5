package dev.racelab.backend;

/**
 * The key of a PostgreSQL advisory lock, as {@code pg_locks} stores it: {@code pg_advisory_lock(bigint)}
 * splits its key into a high half ({@code classid}) and a low half ({@code objid}) with {@code
 * objsubid} 1; {@code pg_advisory_lock(int, int)} keeps its two keys there with {@code objsubid} 2.
 * So the same number as one bigint and as two ints are two different locks.
 *
 * @param classid  the high half, or the first of two keys, as an unsigned 32-bit number
 * @param objid    the low half, or the second of two keys, as an unsigned 32-bit number
 * @param objsubid 1 for one bigint key, 2 for two int keys
 */
public record AdvisoryKey(long classid, long objid, int objsubid) {

    public AdvisoryKey {
        if (objsubid != 1 && objsubid != 2) {
            throw new IllegalArgumentException("an advisory key has objsubid 1 or 2, not " + objsubid);
        }
    }

    /** The lock {@code pg_advisory_lock(key)} takes. */
    public static AdvisoryKey of(long key) {
        return new AdvisoryKey(key >>> 32, key & 0xffff_ffffL, 1);
    }

    /** The lock {@code pg_advisory_lock(key1, key2)} takes. */
    public static AdvisoryKey of(int key1, int key2) {
        return new AdvisoryKey(Integer.toUnsignedLong(key1), Integer.toUnsignedLong(key2), 2);
    }

    /** Whether it is the two-key form. */
    public boolean twoKeys() {
        return objsubid == 2;
    }

    /** The one bigint key; only for the one-key form. */
    public long key() {
        return classid << 32 | objid;
    }

    /** The first of two keys; only for the two-key form. */
    public int key1() {
        return (int) classid;
    }

    /** The second of two keys; only for the two-key form. */
    public int key2() {
        return (int) objid;
    }

    /** The key as the lab wrote it: {@code 42} for {@code pg_advisory_lock(42)}, {@code (1, 42)} for {@code pg_advisory_lock(1, 42)}. */
    @Override
    public String toString() {
        return twoKeys() ? "(" + key1() + ", " + key2() + ")" : String.valueOf(key());
    }
}
