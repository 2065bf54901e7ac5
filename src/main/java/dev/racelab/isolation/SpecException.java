package dev.racelab.isolation;

/**
 * A spec file that cannot be read: one message naming the file, the line and the column of the
 * first thing wrong, as compilers write it ({@code deadlock.spec:12:5: …}), so an editor can jump
 * there.
 */
public final class SpecException extends Exception {

    private final String file;
    private final int line;
    private final int column;
    private final String problem;

    public SpecException(String file, int line, int column, String problem) {
        super(file + ":" + line + ":" + column + ": " + problem);
        this.file = file;
        this.line = line;
        this.column = column;
        this.problem = problem;
    }

    /** The file as the message names it. */
    public String file() {
        return file;
    }

    /** 1-based. */
    public int line() {
        return line;
    }

    /** 1-based, counting characters (a tab is one). */
    public int column() {
        return column;
    }

    /** What is wrong, without the place. */
    public String problem() {
        return problem;
    }
}
