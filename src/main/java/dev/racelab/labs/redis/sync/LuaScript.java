package dev.racelab.labs.redis.sync;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A Lua script kept in resource files, read once per JVM and run with {@code EVALSHA}.
 *
 * <p>The SHA-1 is computed here, so the first call needs no round trip to load the script; a
 * server that has not seen it yet (or has flushed its script cache) answers {@code NOSCRIPT},
 * and the script is loaded with {@code SCRIPT LOAD} and run again. Instances are immutable and
 * shared by every thread; the connection passed to {@link #run} is the caller's.
 */
public final class LuaScript {

    private final String name;
    private final String text;
    private final String sha;

    private LuaScript(String name, String text) {
        this.name = name;
        this.text = text;
        this.sha = sha1(text);
    }

    /**
     * Reads resources beside {@code owner} and joins them, in order, into one script: shared
     * functions first, then the script that uses them.
     */
    public static LuaScript load(Class<?> owner, String... resources) {
        StringBuilder text = new StringBuilder();
        for (String resource : resources) {
            try (InputStream in = owner.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing Lua resource " + resource + " beside " + owner.getName());
                }
                text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new LuaScript(resources[resources.length - 1], text.toString());
    }

    /** Runs the script on {@code jedis}; loads it first if the server does not know it. */
    public Object run(Jedis jedis, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException unknown) {
            jedis.scriptLoad(text);
            return jedis.evalsha(sha, keys, args);
        }
    }

    /** Runs a script that answers with a number. */
    public long runForLong(Jedis jedis, List<String> keys, List<String> args) {
        return (Long) run(jedis, keys, args);
    }

    /** Runs a script that answers with a list of numbers. */
    @SuppressWarnings("unchecked")
    public List<Long> runForLongs(Jedis jedis, List<String> keys, List<String> args) {
        return (List<Long>) run(jedis, keys, args);
    }

    public String sha() {
        return sha;
    }

    @Override
    public String toString() {
        return name;
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }
}
