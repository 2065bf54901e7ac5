package dev.racelab.ui.classroom;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.EncodeHintType;
import com.google.zxing.WriterException;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;

import java.util.Map;

/**
 * A QR code of a text, as an image with whole pixels per module and a quiet zone: sharp on a
 * projector, readable by a phone's camera from the back of a room. Black on white whatever the
 * theme, as scanners expect.
 */
final class QrImage {

    private static final int QUIET_MODULES = 4;

    private QrImage() {
    }

    /** {@code text} as a QR code about {@code pixels} wide (never less than a pixel a module). */
    static WritableImage of(String text, int pixels) {
        BitMatrix modules;
        try {
            modules = new QRCodeWriter().encode(text, BarcodeFormat.QR_CODE, 0, 0,
                    Map.of(EncodeHintType.ERROR_CORRECTION, ErrorCorrectionLevel.M, EncodeHintType.MARGIN, 0));
        } catch (WriterException e) {
            throw new IllegalArgumentException("no QR code holds " + text.length() + " characters", e);
        }
        int side = modules.getWidth() + 2 * QUIET_MODULES;
        int scale = Math.max(1, pixels / side);
        WritableImage image = new WritableImage(side * scale, side * scale);
        PixelWriter out = image.getPixelWriter();
        for (int y = 0; y < side * scale; y++) {
            for (int x = 0; x < side * scale; x++) {
                int mx = x / scale - QUIET_MODULES;
                int my = y / scale - QUIET_MODULES;
                boolean dark = mx >= 0 && my >= 0 && mx < modules.getWidth() && my < modules.getHeight()
                        && modules.get(mx, my);
                out.setArgb(x, y, dark ? 0xFF000000 : 0xFFFFFFFF);
            }
        }
        return image;
    }
}
