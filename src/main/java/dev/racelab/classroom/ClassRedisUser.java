package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.engine.Service;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.exceptions.JedisException;

import java.util.List;

/**
 * A class's share of Redis, confined by privilege: an ACL user {@code racelab-class-<code>} that
 * may send only what a class's machines send ({@link #rules}), to the class's own streams and alive
 * keys {@code racelab:class:<code>:…}. Its password is the class's ({@link ClassRoom}).
 *
 * <p>{@code AUTH} cannot be denied to a user: on a server whose {@code default} user takes any
 * password, a class's user could become {@code default} and do anything. Such a server is refused
 * ({@link #make}). RaceLab's embedded Redis gives {@code default} a password of its own.
 */
final class ClassRedisUser implements AutoCloseable {

    private final Redis server;
    private final ClassCode code;
    private final String password;

    private ClassRedisUser(Redis server, ClassCode code, String password) {
        this.server = server;
        this.code = code;
        this.password = password;
    }

    /**
     * Makes the class's user on {@code server}.
     *
     * @throws BackendException the server lets anyone in as {@code default}, or the login may not make users
     */
    static ClassRedisUser make(Redis server, ClassCode code, String password) throws BackendException {
        try (Jedis admin = server.open("class", 5_000)) {
            String open = openUser(admin);
            if (open != null) {
                throw new BackendException(Service.REDIS, server.describe() + " lets anyone in as its user '"
                        + open + "' without a password, so a user of the class's own would not be confined (any "
                        + "client may AUTH as '" + open + "'): give '" + open + "' a password, or host the class "
                        + "on RaceLab's own servers");
            }
            dropLeftovers(admin);
            admin.aclSetUser(code.redisUser(), rules(code, password, server.address().database()));
            // Born: the class's host is there from now (its heartbeat keeps this), and its user is no leftover.
            admin.psetex(code.key("alive:" + ClassHost.HOST), BIRTH_MILLIS, "1");
        } catch (JedisException e) {
            throw new BackendException(Service.REDIS, server.describe() + " could not make the class's user "
                    + code.redisUser() + ": " + e.getMessage() + " (the login needs ACL SETUSER)", e);
        }
        return new ClassRedisUser(server, code, password);
    }

    /** How long a class being opened counts as hosted before its host's heartbeat says so. */
    private static final long BIRTH_MILLIS = 60_000;

    /** The first user that is on and takes any password, or null. */
    private static String openUser(Jedis admin) {
        for (String user : admin.aclList()) {
            List<String> words = List.of(user.split(" "));
            if (words.size() > 1 && words.contains("on") && words.contains("nopass")) {
                return words.get(1);
            }
        }
        return null;
    }

    /**
     * Removes the users and keys of classes nobody hosts any more (a killed host's: its alive key
     * lapsed), which no expiry would remove: a user lives until it is deleted.
     */
    private static void dropLeftovers(Jedis admin) {
        for (String user : admin.aclUsers()) {
            if (!user.startsWith("racelab-class-")) {
                continue;
            }
            ClassCode code;
            try {
                code = new ClassCode(user.substring("racelab-class-".length()));
            } catch (IllegalArgumentException notOurs) {
                continue;
            }
            if (!admin.exists(code.key("alive:" + ClassHost.HOST))) {
                admin.aclDelUser(user);
                deleteKeys(admin, code);
            }
        }
    }

    /**
     * The class's user's rules: what a class's machines send and nothing more (an allow-list, not
     * Redis's categories less the dangerous ones, which leave scripting and key scans open), on the
     * class's streams and alive keys only, no channels, and alive keys only with an expiry ({@code
     * PSETEX}, never {@code SET}).
     */
    static String[] rules(ClassCode code, String password, int database) {
        List<String> rules = new java.util.ArrayList<>(List.of("reset", "resetchannels", "on", ">" + password,
                "-@all", "+ping", "+hello", "+auth", "+client|setname", "+time",
                "+xadd", "+xread", "+xrange", "+xrevrange", "+expire", "+psetex", "+mget", "+del"));
        if (database != 0) {
            rules.add("+select");
        }
        for (String stream : List.of(ClassChannel.CONTROL, ClassChannel.ROLL, ClassChannel.EVENTS)) {
            rules.add("~" + code.key(stream));
        }
        rules.add("~" + code.key("alive:") + "*");
        return rules.toArray(String[]::new);
    }

    /** The address participants log in with: the server's, as the class's user. */
    RedisAddress address() {
        RedisAddress at = server.address();
        return new RedisAddress(at.host(), at.port(), at.database(), code.redisUser(), password, at.tls());
    }

    /** Removes the user (its connections end with it) and every key of the class. */
    @Override
    public void close() {
        try (Jedis admin = server.open("class", 5_000)) {
            // Deleting the user ends its connections too.
            admin.aclDelUser(code.redisUser());
            deleteKeys(admin, code);
        } catch (JedisException e) {
            // Every key of the class expires: the backstop.
        }
    }

    private static void deleteKeys(Jedis admin, ClassCode code) {
        ScanParams match = new ScanParams().match(code.keyPrefix() + "*").count(500);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = admin.scan(cursor, match);
            List<String> keys = page.getResult();
            if (!keys.isEmpty()) {
                admin.unlink(keys.toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }
}
