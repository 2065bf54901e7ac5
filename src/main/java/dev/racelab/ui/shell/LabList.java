package dev.racelab.ui.shell;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Service;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.model.Settings;
import javafx.collections.FXCollections;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.layout.VBox;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The labs, each with its title, its one-line story and the servers it runs on; the one chosen is
 * the session's lab (and the next start's), and a lab the session turns to (a recording, a
 * walkthrough) is the one chosen here.
 */
public final class LabList extends ListView<Lab> {

    public static final String STYLE = "lab-list";

    /** @param labs the built-in labs; the user's lab files are added after them ({@link dev.racelab.ui.labfiles.LabFiles}) */
    public LabList(List<Lab> labs) {
        super(FXCollections.observableArrayList(labs));
        getStyleClass().add(STYLE);
        setCellFactory(list -> new ListCell<>() {
            private final Label title = new Label();
            private final Label story = new Label();
            private final Label servers = new Label();
            private final Label yours = new Label("your lab file");
            private final VBox box = new VBox(2, yours, title, story, servers);

            {
                title.getStyleClass().add("lab-title");
                story.getStyleClass().add("lab-story");
                story.setWrapText(true);
                servers.getStyleClass().add("lab-servers");
                yours.getStyleClass().add("lab-yours");
                box.setMinWidth(0);
                story.maxWidthProperty().bind(list.widthProperty().subtract(36));
                title.setWrapText(true);
                title.maxWidthProperty().bind(list.widthProperty().subtract(36));
                servers.setWrapText(true);
                servers.maxWidthProperty().bind(list.widthProperty().subtract(36));
            }

            @Override
            protected void updateItem(Lab lab, boolean empty) {
                super.updateItem(lab, empty);
                if (empty || lab == null) {
                    setGraphic(null);
                    return;
                }
                title.setText(lab.title());
                boolean written = dev.racelab.ui.labfiles.LabFiles.isYours(lab);
                yours.setVisible(written);
                yours.setManaged(written);
                story.setText(firstSentence(lab.story()));
                servers.setText(lab.id() + " · " + lab.services().stream().sorted().map(Service::displayName)
                        .collect(Collectors.joining(" + ")));
                setGraphic(box);
            }
        });
    }

    /** The list's one line of a story: a lab file's story may run to a paragraph. */
    static String firstSentence(String story) {
        int end = story.indexOf(". ");
        return end < 0 ? story : story.substring(0, end + 1);
    }

    /** Chooses here what the session works on, and follows the session where it turns to another lab. */
    void follow(Session session, Settings settings) {
        getSelectionModel().selectedItemProperty().addListener((o, a, lab) -> {
            // By id: the isolation lab shown may be bound to another spec than the list's.
            if (lab != null && (session.lab() == null || !lab.id().equals(session.lab().id()))) {
                session.select(lab);
                settings.put(Settings.LAB, lab.id());
            }
        });
        session.labProperty().addListener((o, a, lab) -> {
            Lab listed = getSelectionModel().getSelectedItem();
            if (lab != null && (listed == null || !listed.id().equals(lab.id()))) {
                find(lab.id()).ifPresent(this::show);
            }
        });
    }

    /** Chooses the lab with {@code id}, or the first. */
    void select(String id) {
        show(find(id).orElse(getItems().get(0)));
    }

    /** Chooses {@code lab}, scrolled into sight: a lab file of the user's comes after the built-in labs. */
    private void show(Lab lab) {
        getSelectionModel().select(lab);
        scrollTo(lab);
    }

    private Optional<Lab> find(String id) {
        return getItems().stream().filter(l -> l.id().equals(id)).findFirst();
    }
}
