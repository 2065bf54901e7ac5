package dev.racelab.backend.wire;

/** A NOTIFY the server delivered: from which backend, on which channel, with which payload. */
public record Notification(int senderPid, String channel, String payload) {
}
