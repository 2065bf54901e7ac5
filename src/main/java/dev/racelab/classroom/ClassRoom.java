package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.wire.Passwords;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Everything a class has of the servers, and nothing else: its PostgreSQL login and database
 * ({@link ClassDatabase}) and its Redis user ({@link ClassRedisUser}), all named by its {@link
 * ClassCode}. The participants log in with {@link #postgres()} and {@link #redis()}, never with the
 * host's login. {@link #close} removes all of it; every key of the class expires, and its login's
 * password expires, after {@link #LIFETIME}, the backstop when the host is killed.
 */
public final class ClassRoom implements AutoCloseable {

    /** How long a class may last: a lesson, and then some. */
    public static final Duration LIFETIME = Duration.ofHours(12);

    /**
     * The class's password, for its login and user alike: 16 of {@link Passwords#typable}'s letters,
     * 79 bits, too many to guess at any number of rounds, so its verifier has as few as a random
     * password's ({@link Passwords#scramVerifier}): forty participants logging in at once each pay
     * those rounds for every session.
     */
    private static final int SECRET_LENGTH = 16;

    private final ClassCode code;
    private final String secret;
    private final ClassDatabase database;
    private final ClassRedisUser user;
    private ClassDoor pgDoor;
    private ClassDoor redisDoor;
    private String doorAddress;

    private ClassRoom(ClassCode code, String secret, ClassDatabase database, ClassRedisUser user) {
        this.code = code;
        this.secret = secret;
        this.database = database;
        this.user = user;
    }

    /**
     * Makes a class's share of {@code postgres} and {@code redis}, for up to {@code sessions}
     * PostgreSQL sessions at once.
     *
     * @throws BackendException a server or the host's login cannot give the class a confined share (saying why)
     */
    public static ClassRoom open(Postgres postgres, Redis redis, ClassCode code, int sessions)
            throws BackendException {
        String secret = Passwords.typable(SECRET_LENGTH);
        ClassRedisUser user = ClassRedisUser.make(redis, code, secret);
        try {
            return new ClassRoom(code, secret, ClassDatabase.make(postgres, code, secret, sessions, LIFETIME), user);
        } catch (BackendException | RuntimeException e) {
            user.close();
            throw e;
        }
    }

    public ClassCode code() {
        return code;
    }

    /** Where and as whom participants reach PostgreSQL: the class's login, in the class's database. */
    public PgAddress postgres() {
        return database.address();
    }

    /** Where and as whom participants reach Redis: the class's user. */
    public RedisAddress redis() {
        return user.address();
    }

    /**
     * Opens the class's doors on {@code address} to the servers, which listen on this machine's
     * loopback only (RaceLab's embedded ones): participants elsewhere reach them there.
     */
    void openDoors(InetAddress address) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        pgDoor = ClassDoor.postgres(address, new InetSocketAddress(loopback, database.address().port()),
                code.pgName());
        try {
            redisDoor = ClassDoor.redis(address, new InetSocketAddress(loopback, user.address().port()));
        } catch (IOException e) {
            pgDoor.close();
            pgDoor = null;
            throw e;
        }
        doorAddress = address.getHostAddress();
    }

    /** The line students join with: the doors, or else the servers' own addresses. */
    public JoinLine joinLine() {
        if (doorAddress != null) {
            return new JoinLine(code, secret, doorAddress, pgDoor.port(), doorAddress, redisDoor.port());
        }
        return new JoinLine(code, secret, database.address().host(), database.address().port(),
                user.address().host(), user.address().port());
    }

    /** Removes the class's user, keys, database and login. */
    @Override
    public void close() {
        if (pgDoor != null) {
            pgDoor.close();
            redisDoor.close();
        }
        try {
            user.close();
        } finally {
            database.close();
        }
    }
}
