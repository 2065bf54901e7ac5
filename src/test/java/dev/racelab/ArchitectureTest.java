package dev.racelab;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The layering docs/architecture.md draws, checked on every build. */
@Tag("engine")
class ArchitectureTest {

    private static final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.racelab");

    @Test
    void onlyTheWindowUsesJavaFx() {
        noClasses().that().resideInAnyPackage("dev.racelab.engine..", "dev.racelab.labs..",
                        "dev.racelab.backend..", "dev.racelab.cli..", "dev.racelab.export..",
                        "dev.racelab.isolation..", "dev.racelab.classroom..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "org.controlsfx..")
                .check(classes);
    }

    @Test
    void theEngineKnowsNoLabNoServerAndNoShell() {
        noClasses().that().resideInAPackage("dev.racelab.engine..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.labs..", "dev.racelab.backend..",
                        "dev.racelab.cli..", "dev.racelab.ui..", "java.sql..", "redis.clients..")
                .check(classes);
    }

    @Test
    void labsDoNotReachIntoTheShells() {
        noClasses().that().resideInAnyPackage("dev.racelab.labs..", "dev.racelab.backend..",
                        "dev.racelab.isolation..", "dev.racelab.classroom..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.cli..", "dev.racelab.ui..")
                .check(classes);
    }

    @Test
    void theSpecReaderKnowsNoServer() {
        noClasses().that().resideInAPackage("dev.racelab.isolation")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.backend..", "dev.racelab.labs..",
                        "dev.racelab.isolation.run..", "java.sql..")
                .check(classes);
    }

    @Test
    void theLabFileReaderKnowsNoServer() {
        noClasses().that().resideInAPackage("dev.racelab.labfile")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.backend..", "dev.racelab.labs..",
                        "dev.racelab.engine..", "dev.racelab.isolation.run..", "dev.racelab.cli..", "dev.racelab.ui..",
                        "java.sql..", "javafx..")
                .check(classes);
    }

    @Test
    void whatShowsARunReadsItsRecordNeverTheLiveRun() {
        noClasses().that().resideInAnyPackage("dev.racelab.engine.view..", "dev.racelab.ui.timeline..")
                .or().haveSimpleNameEndingWith("View").and().resideInAnyPackage("dev.racelab.labs..")
                .should().dependOnClassesThat().areAssignableTo(dev.racelab.engine.Run.class)
                .check(classes);
    }

    @Test
    void recordingsAreReadAndWrittenWithoutAShell() {
        noClasses().that().resideInAPackage("dev.racelab.record..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.cli..", "dev.racelab.ui..",
                        "dev.racelab.backend..", "javafx..")
                .check(classes);
    }

    @Test
    void exportsReadRecordsWithoutAWindowOrAServer() {
        noClasses().that().resideInAPackage("dev.racelab.export..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.cli..", "dev.racelab.ui..",
                        "dev.racelab.backend..", "dev.racelab.labs..", "javafx..")
                .check(classes);
    }

    @Test
    void outputFilesAreDecidedWithTheJdkAlone() {
        noClasses().that().resideInAPackage("dev.racelab.files..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.racelab.engine..", "dev.racelab.record..",
                        "dev.racelab.export..", "dev.racelab.cli..", "dev.racelab.ui..", "dev.racelab.backend..",
                        "dev.racelab.labs..", "dev.racelab.isolation..", "javafx..")
                .check(classes);
    }

    @Test
    void theCommandLineNeverTouchesTheWindow() {
        noClasses().that().resideInAPackage("dev.racelab.cli..")
                .should().dependOnClassesThat().resideInAPackage("dev.racelab.ui..")
                .check(classes);
    }

    @Test
    void theWindowAndTheServersWorkInTheBackgroundThroughOneHelper() {
        // Background's threads report any failure, an Error included; a raw thread's may be lost
        // and leave the window at "running…". A JVM shutdown hook is a thread by nature.
        // A constructor called or referred to (Thread::new as a thread factory) alike.
        DescribedPredicate<JavaAccess<?>> makesAThread = DescribedPredicate.describe("make a thread",
                access -> access.getTarget().getName().equals(JavaConstructor.CONSTRUCTOR_NAME)
                        && access.getTargetOwner().isAssignableTo(Thread.class));
        noClasses().that().resideInAnyPackage("dev.racelab.ui..", "dev.racelab.backend..")
                .and().doNotHaveFullyQualifiedName("dev.racelab.ui.RaceLabApp")
                .should().accessTargetWhere(makesAThread)
                .orShould().dependOnClassesThat().belongToAnyOf(java.util.concurrent.Executors.class,
                        java.util.concurrent.ThreadPoolExecutor.class, java.util.concurrent.ScheduledThreadPoolExecutor.class,
                        java.util.concurrent.ForkJoinPool.class, java.util.Timer.class, javafx.concurrent.Service.class)
                .check(classes);
    }

    @Test
    void theBackgroundHelperKnowsOnlyTheJdk() {
        noClasses().that().resideInAPackage("dev.racelab.tasks..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.racelab.tasks..", "java..")
                .check(classes);
    }

    @Test
    void theWindowsModelNeedsNoToolkit() {
        // Session and Commands are the window's model: observable values, no nodes, no FX thread.
        noClasses().that().haveFullyQualifiedName("dev.racelab.ui.model.Session")
                .or().haveFullyQualifiedName("dev.racelab.ui.model.Commands")
                .should().dependOnClassesThat().resideInAnyPackage("javafx.application..", "javafx.scene..",
                        "javafx.stage..", "javafx.animation..", "javafx.concurrent..", "org.controlsfx..")
                .check(classes);
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        SlicesRuleDefinition.slices().matching("dev.racelab.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void labsDoNotDependOnEachOther() {
        // What labs share lives in labs.support (fixtures) and labs.redis (the Redis constructs).
        SlicesRuleDefinition.slices().matching("dev.racelab.labs.(*)..").should().notDependOnEachOther()
                .ignoreDependency(DescribedPredicate.alwaysTrue(),
                        JavaClass.Predicates.resideInAnyPackage("dev.racelab.labs.support..", "dev.racelab.labs.redis.."))
                .check(classes);
    }
}
