package dev.racelab.ui.isolation;

import dev.racelab.backend.Backends;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunPhase;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.labs.isolation.SpecSource;
import dev.racelab.ui.model.Session;
import javafx.application.Platform;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.css.PseudoClass;
import javafx.geometry.Pos;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.util.StringConverter;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The isolation lab's own controls, beside the gates table while that lab is chosen: which spec
 * (RaceLab's teaching specs, or a spec file opened or dropped on the window), its permutations
 * (choose one, or the order by hand), and the grid of every permutation coloured by what it
 * showed — a click replays that one, animated, as a run.
 *
 * <p>Choosing a spec binds the lab to it ({@link IsolationLab#withSpec}) and selects that lab in
 * the session, so the lanes, the workers and the runs follow. The grid's runs go through {@link
 * PermutationGrid} on a thread of its own; the FX thread only shows their results.
 */
public final class IsolationBench extends VBox {

    public static final String STYLE = "isolation-bench";
    private static final PseudoClass CHOSEN = PseudoClass.getPseudoClass("chosen");

    private final Session session;
    private final IsolationLab registered;
    private final ObservableList<SpecSource> specs = FXCollections.observableArrayList();
    private final ComboBox<SpecSource> specList = new ComboBox<>(specs);
    private final Label story = new Label();
    private final ListView<Integer> permutations = new ListView<>();
    private final PermutationGrid grid;
    private boolean syncing;

    public IsolationBench(Session session, IsolationLab registered, Backends backends) {
        this.session = session;
        this.registered = registered;
        this.grid = new PermutationGrid(backends, this::play);
        getStyleClass().add(STYLE);
        TeachingSpec.all().forEach(t -> specs.add(SpecSource.of(t)));
        specList.setId("isolation-spec");
        specList.setConverter(new StringConverter<>() {
            @Override
            public String toString(SpecSource source) {
                return source == null ? "" : source.title() + (source.teaching().isPresent() ? "" : " (" + source.name()
                        + ".spec)");
            }

            @Override
            public SpecSource fromString(String text) {
                return null;
            }
        });
        specList.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(specList, Priority.ALWAYS);
        specList.valueProperty().addListener((o, was, chosen) -> {
            if (!syncing && chosen != null) {
                use(chosen);
            }
        });
        Button open = new Button("Open spec file…");
        open.setId("isolation-open");
        open.setTooltip(new Tooltip("Open a spec in PostgreSQL's isolation test format (or drop one on the window)"));
        open.setOnAction(e -> choose());
        Label specLabel = new Label("Spec");
        specLabel.getStyleClass().add("bench-title");
        specLabel.setMinWidth(Region.USE_PREF_SIZE);
        open.setMinWidth(Region.USE_PREF_SIZE);
        HBox specRow = new HBox(8, specLabel, specList, open);
        specRow.setAlignment(Pos.CENTER_LEFT);

        story.setWrapText(true);
        story.getStyleClass().add("bench-story");

        permutations.setId("isolation-permutations");
        permutations.setCellFactory(list -> new ListCell<>() {
            @Override
            protected void updateItem(Integer number, boolean empty) {
                super.updateItem(number, empty);
                setText(empty || number == null ? null : describe(number));
            }
        });
        permutations.getSelectionModel().selectedItemProperty().addListener((o, was, number) -> {
            if (!syncing && number != null) {
                choosePermutation(number);
            }
        });
        permutations.setOnMouseClicked(e -> {
            Integer number = permutations.getSelectionModel().getSelectedItem();
            if (e.getClickCount() == 2 && number != null) {
                play(number);
            }
        });
        permutations.setPrefHeight(120);
        VBox.setVgrow(permutations, Priority.ALWAYS);

        Button every = new Button("Run every permutation");
        every.setId("isolation-every");
        every.setTooltip(new Tooltip("Run each of the spec's permutations once, each in a database of its own, and "
                + "colour the grid by what it showed"));
        every.setOnAction(e -> runEveryPermutation());
        Button byHand = new Button("By hand");
        byHand.setId("isolation-by-hand");
        byHand.setTooltip(new Tooltip("Step mode with the chosen permutation's steps: release one session at a time "
                + "(select its lane, then Step) and make your own interleaving"));
        byHand.setOnAction(e -> startByHand());
        every.setMinWidth(Region.USE_PREF_SIZE);
        byHand.setMinWidth(Region.USE_PREF_SIZE);
        HBox actions = new HBox(8, every, byHand, grid.status());
        actions.setAlignment(Pos.CENTER_LEFT);

        getChildren().addAll(specRow, story, permutations, actions, grid, grid.legend());
        session.labProperty().addListener((o, was, lab) -> showLab(lab));
        session.switchesProperty().addListener((o, was, values) -> showChosen());
        session.stateProperty().addListener((o, was, phase) -> {
            if (phase == RunPhase.RUNNING || phase == RunPhase.PAUSED) {
                grid.mark(chosenNumber());
            }
        });
        showLab(session.lab());
    }

    /** Whether the session's lab is the isolation lab: the bench shows only then. */
    public static boolean shows(Lab lab) {
        return lab instanceof IsolationLab;
    }

    /** Opens a spec file (the button, or a file dropped on the window); a malformed one is named in a message. */
    public void open(Path file) {
        try {
            SpecSource source = SpecSource.read(file);
            specs.removeIf(s -> s.origin().equals(source.origin()));
            specs.add(source);
            specList.setValue(source);
        } catch (SpecException e) {
            problem("This spec cannot be read", e.getMessage());
        } catch (IOException e) {
            problem("This spec cannot be read", "Cannot read " + file + ": " + e.getMessage());
        }
    }

    private void choose() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Open an isolation spec");
        chooser.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("Isolation specs (*.spec)", "*.spec"),
                new FileChooser.ExtensionFilter("All files", "*"));
        File file = chooser.showOpenDialog(getScene().getWindow());
        if (file != null) {
            open(file.toPath());
        }
    }

    private void problem(String header, String text) {
        Alert alert = new Alert(Alert.AlertType.ERROR, text);
        alert.setHeaderText(header);
        alert.initOwner(getScene().getWindow());
        alert.getDialogPane().setId("spec-problem");
        alert.show();
    }

    /** Binds the lab to {@code source}: the session selects it, and everything follows. */
    private void use(SpecSource source) {
        SpecSource current = currentSource();
        if (current != null && current.origin().equals(source.origin()) && current.name().equals(source.name())) {
            return;
        }
        session.select(registered.withSpec(source));
    }

    private SpecSource currentSource() {
        return session.lab() instanceof IsolationLab lab ? lab.spec() : registered.spec();
    }

    private void showLab(Lab lab) {
        setVisible(shows(lab));
        setManaged(shows(lab));
        if (!(lab instanceof IsolationLab isolation)) {
            return;
        }
        SpecSource source = isolation.spec();
        syncing = true;
        try {
            SpecSource listed = specs.stream().filter(s -> s.origin().equals(source.origin())
                    && s.name().equals(source.name())).findFirst().orElse(null);
            if (listed == null) {
                specs.add(source);
                listed = source;
            }
            specList.setValue(listed);
            List<Integer> numbers = new ArrayList<>();
            int offered = source.permutations().size();
            for (int n = 1; n <= offered; n++) {
                numbers.add(n);
            }
            permutations.getItems().setAll(numbers);
        } finally {
            syncing = false;
        }
        long all = source.permutationCount();
        story.setText(source.teaching().map(TeachingSpec::story).orElse(source.spec().sessions().size()
                + " sessions, " + all + " permutation" + (all == 1 ? "" : "s")
                + (all > source.permutations().size() ? " (the first " + source.permutations().size() + " shown)" : "")
                + " · " + source.origin()));
        grid.show(source);
        showChosen();
    }

    private String describe(int number) {
        SpecSource source = currentSource();
        Permutation p = source.permutations().get(number - 1);
        String stated = source.expectation(number).map(e -> "  → " + e.outcome()).orElse("");
        return number + " · " + source.label(number) + stated + ":  " + p;
    }

    private int chosenNumber() {
        return session.switchesProperty().get().get(IsolationLab.PERMUTATION);
    }

    private void showChosen() {
        if (!(session.lab() instanceof IsolationLab)) {
            return;
        }
        int number = chosenNumber();
        syncing = true;
        try {
            if (number <= permutations.getItems().size()) {
                permutations.getSelectionModel().select(Integer.valueOf(number));
                permutations.scrollTo(number - 1);
            }
        } finally {
            syncing = false;
        }
    }

    private void choosePermutation(int number) {
        session.switchesProperty().set(session.switchesProperty().get().with(IsolationLab.PERMUTATION, number));
    }

    /** Runs every permutation of the spec shown, filling the grid: the button "Run every permutation". */
    public void runEveryPermutation() {
        grid.runEvery(currentSource(), session.switchesProperty().get().get(IsolationLab.AS_LOGIN)
                ? SpecSandbox.Access.AS_LOGIN : SpecSandbox.Access.CONFINED);
    }

    /** Plays permutation {@code number} as a run of its own: the grid's click, or a double click in the list. */
    public void play(int number) {
        if (!(session.lab() instanceof IsolationLab lab)) {
            return;
        }
        session.stop();
        session.strategyProperty().set(lab.strategy("permutation").orElseThrow());
        session.stepModeProperty().set(false);
        choosePermutation(number);
        session.reset();
        session.start();
        Platform.runLater(() -> grid.mark(number));
    }

    /** Step mode with the chosen permutation's steps, each session's in its own order: the button "By hand". */
    public void startByHand() {
        if (!(session.lab() instanceof IsolationLab lab)) {
            return;
        }
        session.strategyProperty().set(lab.strategy("by-hand").orElseThrow());
        session.stepModeProperty().set(true);
        session.reset();
        session.start();
    }

    /** The grid, for tests and the screenshot tour. */
    public PermutationGrid grid() {
        return grid;
    }

    static void chosen(javafx.scene.Node node, boolean on) {
        node.pseudoClassStateChanged(CHOSEN, on);
    }
}
