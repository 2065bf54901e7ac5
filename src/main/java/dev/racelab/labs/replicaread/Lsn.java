package dev.racelab.labs.replicaread;

/** A WAL position as PostgreSQL writes it ({@code 0/3000148}) and as a number of bytes. */
final class Lsn {

    private Lsn() {
    }

    /** The byte position {@code text} names; 0 for none (a standby that has received nothing). */
    static long parse(String text) {
        if (text == null) {
            return 0;
        }
        int slash = text.indexOf('/');
        return (Long.parseLong(text.substring(0, slash), 16) << 32) | Long.parseLong(text.substring(slash + 1), 16);
    }

    /** {@code position} as PostgreSQL writes it. */
    static String text(long position) {
        return Long.toHexString(position >>> 32).toUpperCase() + "/" + Long.toHexString(position & 0xFFFFFFFFL)
                .toUpperCase();
    }
}
