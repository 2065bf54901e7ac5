package dev.racelab.backend.wire;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;

/**
 * Whom {@code sslmode=verify-ca} and {@code verify-full} trust: the certificates in the file the
 * address names with {@code sslrootcert}, else the JVM's own trusted authorities.
 */
final class TrustStores {

    private TrustStores() {
    }

    static TrustManager[] managers(String rootCert) throws GeneralSecurityException, IOException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (rootCert == null || rootCert.isBlank()) {
            factory.init((KeyStore) null);
            return factory.getTrustManagers();
        }
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(Path.of(rootCert))) {
            int n = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("root-" + n++, c);
            }
        }
        factory.init(store);
        return factory.getTrustManagers();
    }
}
