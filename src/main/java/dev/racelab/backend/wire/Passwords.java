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
     * The SCRAM-SHA-256 verifier of {@code password}, for {@code CREATE ROLE … PASSWORD '…'}: the
     * server checks a login against it, and the password never reaches the server.
     */
    public static String scramVerifier(String password) {
        return Scram.verifier(password);
    }
}
