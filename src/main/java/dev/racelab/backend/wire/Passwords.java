package dev.racelab.backend.wire;

import java.security.SecureRandom;
import java.util.Base64;

/** Passwords RaceLab makes for logins of its own, and what the server stores for them. */
public final class Passwords {

    private Passwords() {
    }

    /** A password nobody could guess: 32 random bytes, as URL-safe Base64. */
    public static String random() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The SCRAM-SHA-256 verifier of a password made by {@link #random}, for {@code CREATE ROLE …
     * PASSWORD '…'}: the server checks a login against it, and the password never reaches the server.
     *
     * <p>With {@value #RANDOM_ROUNDS} rounds of PBKDF2, not the 4096 libpq gives a person's password.
     * Rounds only slow someone who read the verifier (a superuser, a backup) and guesses passwords
     * to try against it; a person's password may be among the first guesses, but 32 random bytes
     * are 2^256 guesses at any number of rounds. Every login by the password (each session of a
     * spec, where {@code pg_hba.conf} asks for one) computes those rounds on RaceLab's side: 4096
     * cost a few milliseconds of CPU each.
     */
    public static String scramVerifier(String password) {
        return Scram.verifier(password, RANDOM_ROUNDS);
    }

    /**
     * A password a person can type off a projector: {@code length} letters and digits, none that
     * look alike (16 of them are 79 bits).
     */
    public static String typable(int length) {
        SecureRandom random = new SecureRandom();
        StringBuilder password = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            password.append(TYPABLE.charAt(random.nextInt(TYPABLE.length())));
        }
        return password.toString();
    }

    /** The letters and digits of a {@link #typable} password: none that look alike. */
    public static final String TYPABLE = "abcdefghjkmnpqrstuvwxyz23456789";

    /** PBKDF2's rounds in the verifier of a random password ({@link #scramVerifier}). */
    static final int RANDOM_ROUNDS = 16;
}
