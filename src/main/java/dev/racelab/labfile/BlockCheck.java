package dev.racelab.labfile;

import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecScanner.Token;
import dev.racelab.labfile.LabFile.Block;
import dev.racelab.labfile.LabFile.Server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What {@link LabReader} checks inside a block: a Redis block's commands and keys, and the values
 * ({@code $name}) any block uses; a problem names its line and column in the file.
 */
final class BlockCheck {

    private final String file;
    private final String text;
    private final List<Integer> lineStarts = new ArrayList<>();

    BlockCheck(String file, String text) {
        this.file = file;
        this.text = text;
        lineStarts.add(0);
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                lineStarts.add(i + 1);
            }
        }
    }

    /**
     * Checks {@code block}, whose '{' is {@code brace}, called {@code what} in messages, which may
     * use {@code values}; whether it uses any value.
     */
    boolean check(Token brace, Block block, String what, Set<String> values) throws SpecException {
        List<SqlValues.Use> uses = uses(brace, block);
        for (SqlValues.Use use : uses) {
            if (!values.contains(use.name())) {
                throw at(use.offset(), what + " uses $" + use.name() + ", which "
                        + (LabReader.BUILT_IN.contains(use.name()) ? "it cannot use there: only " + values
                        : "no earlier step of its session captures (capture " + use.name() + ")"));
            }
        }
        return !uses.isEmpty();
    }

    /**
     * The values {@code block} (whose '{' is {@code brace}) uses, each with its offset in the file,
     * after checking a Redis block's commands and keys.
     */
    List<SqlValues.Use> uses(Token brace, Block block) throws SpecException {
        int start = textStart(brace);
        if (block.server() == Server.REDIS) {
            try {
                RedisScript.read(block.text());
            } catch (RedisScript.Refusal e) {
                throw at(start + e.offset, e.getMessage());
            }
        }
        List<SqlValues.Use> uses = block.server() == Server.REDIS ? RedisScript.values(block.text())
                : SqlValues.in(block.text());
        return uses.stream().map(u -> new SqlValues.Use(u.name(), start + u.offset())).toList();
    }

    /** Where the text of the block whose '{' is at {@code brace} begins: past the blanks the scanner trims. */
    private int textStart(Token brace) {
        int i = lineStarts.get(brace.line() - 1) + brace.column();
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t' || text.charAt(i) == '\r'
                || text.charAt(i) == '\f')) {
            i++;
        }
        return i;
    }

    /** A problem at {@code offset} in the file. */
    SpecException at(int offset, String problem) {
        int line = 0;
        while (line + 1 < lineStarts.size() && lineStarts.get(line + 1) <= offset) {
            line++;
        }
        return new SpecException(file, line + 1, offset - lineStarts.get(line) + 1, problem);
    }
}
