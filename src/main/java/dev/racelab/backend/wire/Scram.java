package dev.racelab.backend.wire;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.util.Base64;

/**
 * The client's half of SCRAM-SHA-256 (RFC 5802, RFC 7677), without channel binding, as a
 * PostgreSQL server asks for it when {@code password_encryption} is {@code scram-sha-256}.
 * One login: {@link #clientFirst}, then {@link #clientFinal} with the server's first message,
 * then {@link #verifyServerFinal} with its last, which proves the server knew the password too.
 */
final class Scram {

    static final String MECHANISM = "SCRAM-SHA-256";

    private final String user;
    private final String password;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] serverSignature;

    /**
     * @param user PostgreSQL ignores the name in SCRAM (it has the startup message's), so a login
     *             sends an empty one; the RFC's test vector needs one
     */
    Scram(String user, String password, String clientNonce) {
        this.user = user;
        this.password = password;
        this.clientNonce = clientNonce;
    }

    static Scram forLogin(String password) {
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        return new Scram("", password, Base64.getEncoder().encodeToString(random));
    }

    /**
     * What a server stores for {@code password} ({@code SCRAM-SHA-256$rounds:salt$StoredKey:ServerKey},
     * as libpq's {@code PQencryptPasswordConn} makes it): given to {@code CREATE ROLE … PASSWORD},
     * the password itself never travels to the server, nor into its statement log.
     */
    static String verifier(String password, int rounds) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return verifier(password, salt, rounds);
    }

    /** {@link #verifier(String, int)} with the salt given. */
    static String verifier(String password, byte[] salt, int rounds) {
        try {
            byte[] salted = hi(normalize(password).getBytes(StandardCharsets.UTF_8), salt, rounds);
            byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(hmac(salted, "Client Key"));
            byte[] serverKey = hmac(salted, "Server Key");
            Base64.Encoder b64 = Base64.getEncoder();
            return MECHANISM + "$" + rounds + ":" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey)
                    + ":" + b64.encodeToString(serverKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HMAC-SHA-256", e);
        }
    }

    /** {@code n,,n=USER,r=NONCE}: no channel binding. */
    String clientFirst() {
        clientFirstBare = "n=" + user.replace("=", "=3D").replace(",", "=2C") + ",r=" + clientNonce;
        return "n,," + clientFirstBare;
    }

    /** The proof, from the server's nonce, salt and iteration count. */
    String clientFinal(String serverFirst) throws WireException {
        String nonce = attribute(serverFirst, 'r');
        String salt = attribute(serverFirst, 's');
        String iterations = attribute(serverFirst, 'i');
        if (!nonce.startsWith(clientNonce)) {
            throw new WireException("the server's SCRAM nonce does not extend RaceLab's: login abandoned");
        }
        int rounds;
        try {
            rounds = Integer.parseInt(iterations);
        } catch (NumberFormatException e) {
            throw new WireException("the server sent a SCRAM iteration count that is not a number");
        }
        try {
            byte[] salted = hi(normalize(password).getBytes(StandardCharsets.UTF_8), Base64.getDecoder().decode(salt),
                    rounds);
            byte[] clientKey = hmac(salted, "Client Key");
            byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
            String withoutProof = "c=biws,r=" + nonce;
            String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
            byte[] clientSignature = hmac(storedKey, authMessage);
            byte[] proof = new byte[clientKey.length];
            for (int i = 0; i < proof.length; i++) {
                proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
            }
            serverSignature = hmac(hmac(salted, "Server Key"), authMessage);
            return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new WireException("SCRAM-SHA-256 failed: " + e.getMessage(), e);
        }
    }

    /** Checks the server's signature: a server that did not know the password cannot make it. */
    void verifyServerFinal(String serverFinal) throws WireException {
        if (serverFinal.startsWith("e=")) {
            throw new WireException("the server ended the SCRAM login: " + serverFinal.substring(2));
        }
        byte[] sent = Base64.getDecoder().decode(attribute(serverFinal, 'v'));
        if (serverSignature == null || !MessageDigest.isEqual(sent, serverSignature)) {
            throw new WireException("the server's SCRAM signature is wrong: it does not know the password");
        }
    }

    private static String attribute(String message, char name) throws WireException {
        for (String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        throw new WireException("the server's SCRAM message has no '" + name + "=' attribute");
    }

    /**
     * SASLprep, as far as it changes a password: NFKC normalisation. (libpq also maps some
     * spaces and drops some characters; ASCII passwords are unchanged either way.)
     */
    private static String normalize(String text) {
        return Normalizer.normalize(text, Normalizer.Form.NFKC);
    }

    /** RFC 5802's Hi(): PBKDF2 with HMAC-SHA-256 and one block. */
    private static byte[] hi(byte[] password, byte[] salt, int rounds) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(password, "HmacSHA256"));
        mac.update(salt);
        byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
        byte[] result = u.clone();
        for (int i = 1; i < rounds; i++) {
            u = mac.doFinal(u);
            for (int j = 0; j < result.length; j++) {
                result[j] ^= u[j];
            }
        }
        return result;
    }

    private static byte[] hmac(byte[] key, String text) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    }
}
