package dev.racelab.ui.startup;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.engine.Service;
import dev.racelab.tasks.Background;
import dev.racelab.ui.model.Settings;
import javafx.application.Platform;
import javafx.event.ActionEvent;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Window;

import java.util.Optional;

/**
 * Says which server could not be used and why, and offers another: an address to type (checked by
 * connecting before it is taken, without closing the dialog on failure), or RaceLab's own embedded
 * server. A chosen address is remembered across launches; its password only if the user asks.
 */
public final class ServerDialog extends Dialog<ButtonType> {

    public static final ButtonType CONNECT = new ButtonType("Connect", ButtonBar.ButtonData.OK_DONE);
    public static final ButtonType EMBEDDED = new ButtonType("Use embedded server", ButtonBar.ButtonData.OTHER);
    public static final ButtonType LATER = new ButtonType("Not now", ButtonBar.ButtonData.CANCEL_CLOSE);

    private final Service service;
    private final Backends backends;
    private final Settings settings;
    private final TextField url = new TextField();
    private final PasswordField password = new PasswordField();
    private final CheckBox remember = new CheckBox("Remember the password on this computer");
    private final Label result = new Label();
    private final ProgressIndicator checking = new ProgressIndicator();

    public ServerDialog(Window owner, Service service, String problem, Backends backends, Settings settings) {
        this.service = service;
        this.backends = backends;
        this.settings = settings;
        initOwner(owner);
        setTitle(service.displayName() + " — RaceLab");
        setHeaderText(problem == null ? "Which " + service.displayName() + " should RaceLab use?"
                : service.displayName() + " is not available");
        getDialogPane().getStyleClass().add("server-dialog");
        getDialogPane().getButtonTypes().addAll(CONNECT, EMBEDDED, LATER);

        Label why = new Label(problem == null ? "RaceLab uses its own embedded server unless you name another."
                : problem);
        why.setWrapText(true);
        why.getStyleClass().add(problem == null ? "dialog-note" : "dialog-problem");
        url.setId("server-url");
        url.setPromptText(service == Service.POSTGRES ? "postgresql://user@localhost:5432/mydb"
                : "redis://localhost:6379");
        url.setPrefColumnCount(34);
        settings.get(settingsKey()).ifPresent(url::setText);
        password.setId("server-password");
        password.setPromptText("if the server asks for one");
        result.setId("server-result");
        result.setWrapText(true);
        result.setMaxWidth(520);
        checking.setVisible(false);
        checking.setPrefSize(18, 18);

        GridPane form = new GridPane();
        form.setHgap(8);
        form.setVgap(8);
        form.addRow(0, new Label("Address"), url);
        form.addRow(1, new Label("Password"), password);
        form.add(remember, 1, 2);
        VBox content = new VBox(12, why, form, new HBox(8, checking, result));
        content.setPadding(new Insets(8, 0, 0, 0));
        content.setPrefWidth(560);
        getDialogPane().setContent(content);

        Button connect = (Button) getDialogPane().lookupButton(CONNECT);
        connect.addEventFilter(ActionEvent.ACTION, e -> {
            e.consume();
            check();
        });
        Button embedded = (Button) getDialogPane().lookupButton(EMBEDDED);
        embedded.addEventFilter(ActionEvent.ACTION, e -> useEmbedded());
        Platform.runLater(url::requestFocus);
    }

    private String settingsKey() {
        return service == Service.POSTGRES ? Settings.POSTGRES_URL : Settings.REDIS_URL;
    }

    /** Parses and tries the address on a background thread; the dialog stays open until it works. */
    private void check() {
        String text = url.getText().strip();
        if (text.isEmpty()) {
            fail("Type an address first, for example " + url.getPromptText());
            return;
        }
        Object address;
        try {
            address = service == Service.POSTGRES ? withPassword(PgAddress.parse(text)) : withPassword(RedisAddress.parse(text));
        } catch (IllegalArgumentException e) {
            fail("That address does not work: " + e.getMessage());
            return;
        }
        checking.setVisible(true);
        result.setText("Connecting…");
        result.getStyleClass().removeAll("dialog-problem", "dialog-ok");
        getDialogPane().lookupButton(CONNECT).setDisable(true);
        Background.run("check-" + service.name().toLowerCase(), () -> {
            try {
                if (address instanceof PgAddress pg) {
                    try (Postgres ignored = Postgres.connect(pg)) {
                        Platform.runLater(() -> accept(pg, null));
                    }
                } else {
                    try (Redis ignored = Redis.connect((RedisAddress) address)) {
                        Platform.runLater(() -> accept(null, (RedisAddress) address));
                    }
                }
            } catch (BackendException e) {
                Platform.runLater(() -> fail(e.getMessage()));
            }
        }, e -> Platform.runLater(() -> fail(service.displayName() + " could not be used: " + Background.said(e))));
    }

    private PgAddress withPassword(PgAddress address) {
        if (password.getText().isEmpty()) {
            return address;
        }
        return new PgAddress(address.host(), address.port(), address.database(), address.user(), password.getText(),
                java.util.Map.of());
    }

    private RedisAddress withPassword(RedisAddress address) {
        if (password.getText().isEmpty()) {
            return address;
        }
        return new RedisAddress(address.host(), address.port(), address.database(), address.user(),
                password.getText(), address.tls());
    }

    private void accept(PgAddress pg, RedisAddress redis) {
        BackendSettings current = backends.settings();
        if (pg != null) {
            settings.put(Settings.POSTGRES_URL, (remember.isSelected() ? pg : pg.withoutPassword()).secretUrl());
            backends.use(current.withPostgres(Optional.of(pg)));
        } else {
            settings.put(Settings.REDIS_URL, (remember.isSelected() ? redis : redis.withoutPassword()).secretUrl());
            backends.use(current.withRedis(Optional.of(redis)));
        }
        setResult(CONNECT);
        close();
    }

    private void useEmbedded() {
        settings.put(settingsKey(), null);
        BackendSettings current = backends.settings();
        backends.use(service == Service.POSTGRES ? current.withPostgres(Optional.empty())
                : current.withRedis(Optional.empty()));
    }

    private void fail(String message) {
        checking.setVisible(false);
        getDialogPane().lookupButton(CONNECT).setDisable(false);
        result.setText(message);
        result.getStyleClass().remove("dialog-ok");
        if (!result.getStyleClass().contains("dialog-problem")) {
            result.getStyleClass().add("dialog-problem");
        }
    }
}
