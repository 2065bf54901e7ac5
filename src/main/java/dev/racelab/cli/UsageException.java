package dev.racelab.cli;

/** The command line is wrong; the message names the bad argument in one line. Exit code 2. */
final class UsageException extends Exception {

    UsageException(String message) {
        super(message);
    }
}
