package dev.racelab.backend.wire;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The password logins a server may ask for that the test servers (trust) never do: SCRAM-SHA-256
 * on RFC 7677's own exchange, and PostgreSQL's MD5 recipe.
 */
@Tag("engine")
class LoginTest {

    @Test
    void scramProvesThePasswordAndChecksTheServersSignatureAsRfc7677Shows() throws WireException {
        Scram scram = new Scram("user", "pencil", "rOprNGfwEbeRWgbNEkqO");
        assertEquals("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", scram.clientFirst());
        String serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assertEquals("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", scram.clientFinal(serverFirst));
        scram.verifyServerFinal("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        WireException forged = assertThrows(WireException.class,
                () -> scram.verifyServerFinal("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="));
        assertEquals("the server's SCRAM signature is wrong: it does not know the password", forged.getMessage());
    }

    @Test
    void aScramVerifierIsWhatAServerStoresForThePassword() {
        // Computed apart from RaceLab (Python's hashlib: PBKDF2-HMAC-SHA-256, then HMAC and SHA-256
        // as RFC 5802 says), for "pencil", the salt 0..15 and 4096 rounds.
        byte[] salt = new byte[16];
        for (int i = 0; i < salt.length; i++) {
            salt[i] = (byte) i;
        }
        assertEquals("SCRAM-SHA-256$4096:AAECAwQFBgcICQoLDA0ODw==$zHCdol2044/ZyWzPLi7oxApCkamKw9Z+E4U/QApd/5Y="
                + ":dd5peBOitVnLNFu7VmwP+HiDaaw4OUCv396eVCWhYiE=", Scram.verifier("pencil", salt, 4096));
        String random = Passwords.scramVerifier("pencil");
        assertTrue(random.startsWith("SCRAM-SHA-256$" + Passwords.RANDOM_ROUNDS + ":") && !random.contains("pencil"),
                random);
    }

    @Test
    void scramRefusesAServerNonceThatDoesNotExtendTheClients() {
        Scram scram = new Scram("", "pencil", "abc");
        scram.clientFirst();
        assertThrows(WireException.class, () -> scram.clientFinal("r=xyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
    }

    @Test
    void md5IsTheHexDigestOfTheDigestOfPasswordAndUserWithTheSalt() {
        // MD5 of the empty string and of "abc", as RFC 1321 lists them: the digest the recipe
        // md5(md5(password || user) || salt) is made of.
        assertEquals("d41d8cd98f00b204e9800998ecf8427e", WireConnection.md5Hex(new byte[0]));
        assertEquals("900150983cd24fb0d6963f7d28e17f72", WireConnection.md5Hex("abc".getBytes(StandardCharsets.UTF_8)));
    }
}
