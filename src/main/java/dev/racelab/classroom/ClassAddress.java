package dev.racelab.classroom;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Optional;

/**
 * The address a class's participants reach the host at: this machine's first address on a
 * network that is up, not loopback and not a link-local one (a classroom's network, IPv4 first),
 * or loopback when it has none (then only this machine can join).
 */
final class ClassAddress {

    private ClassAddress() {
    }

    static InetAddress choose() {
        return network(true).or(() -> network(false)).orElse(InetAddress.getLoopbackAddress());
    }

    private static Optional<InetAddress> network(boolean ipv4) {
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback() || nic.isVirtual()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if ((a instanceof Inet4Address) == ipv4 && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return Optional.of(a);
                    }
                }
            }
        } catch (SocketException e) {
            // No interfaces to ask: loopback.
        }
        return Optional.empty();
    }
}
