package dev.racelab.labs.file;

import dev.racelab.labfile.LabFile;
import dev.racelab.labfile.BlockText;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.util.SafeEncoder;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one block of a lab file and gives its value: PostgreSQL's first column of the first row,
 * the values bound as parameters of no declared type; Redis's last reply, each value one
 * argument, each key {@code racelab:x} made the run's own {@code racelab:<run>:x}.
 */
final class FileSteps {

    private final String prefix;

    FileSteps(String runId) {
        this.prefix = "racelab:" + runId + ":";
    }

    /** What the run's keys begin with on the server. */
    String prefix() {
        return prefix;
    }

    /** Runs {@code block} on {@code pg} or {@code redis}, with {@code values}; its value. */
    String run(LabFile.Block block, Connection pg, Jedis redis, Map<String, String> values) throws SQLException {
        return block.server() == LabFile.Server.PG ? sql(block.text(), pg, values) : redis(block.text(), redis, values);
    }

    private static String sql(String text, Connection pg, Map<String, String> values) throws SQLException {
        List<BlockText.Use> uses = BlockText.sqlValues(text);
        if (uses.isEmpty()) {
            try (Statement statement = pg.createStatement()) {
                return firstValue(statement, statement.execute(text));
            }
        }
        StringBuilder sql = new StringBuilder();
        List<String> bound = new ArrayList<>();
        int from = 0;
        for (BlockText.Use use : uses) {
            sql.append(text, from, use.offset()).append('?');
            bound.add(value(values, use.name()));
            from = use.offset() + 1 + use.name().length();
        }
        sql.append(text.substring(from));
        try (PreparedStatement statement = pg.prepareStatement(sql.toString())) {
            for (int i = 0; i < bound.size(); i++) {
                statement.setObject(i + 1, bound.get(i), Types.OTHER);
            }
            return firstValue(statement, statement.execute());
        }
    }

    /** The first column of the first row of the first result that has rows; null when none does. */
    private static String firstValue(Statement statement, boolean rows) throws SQLException {
        boolean isRows = rows;
        while (true) {
            if (isRows) {
                try (ResultSet rs = statement.getResultSet()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
            if (statement.getUpdateCount() == -1) {
                return null;
            }
            isRows = statement.getMoreResults();
        }
    }

    private String redis(String text, Jedis redis, Map<String, String> values) {
        Object reply = null;
        for (List<BlockText.Arg> command : BlockText.redisCommands(text)) {
            String name = command.get(0).text();
            String[] args = new String[command.size() - 1];
            for (int i = 1; i < command.size(); i++) {
                BlockText.Arg arg = command.get(i);
                String filled = arg.literal() ? arg.text() : BlockText.fill(arg.text(), v -> value(values, v));
                args[i - 1] = filled.startsWith("racelab:") ? prefix + filled.substring("racelab:".length()) : filled;
            }
            ProtocolCommand protocol = () -> SafeEncoder.encode(name);
            reply = redis.sendCommand(protocol, args);
        }
        return text(reply);
    }

    private static String text(Object reply) {
        if (reply == null) {
            return null;
        }
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> list) {
            return String.join(" ", list.stream().map(FileSteps::text).map(String::valueOf).toList());
        }
        return reply.toString();
    }

    private static String value(Map<String, String> values, String name) {
        if (!values.containsKey(name)) {
            throw new IllegalStateException("$" + name + " is not there under this run's choices");
        }
        return values.get(name);
    }
}
