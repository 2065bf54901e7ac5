package dev.racelab;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every test belongs to a tier ({@code docs/architecture.md}, "Tests"): a test with no tier tag, on
 * itself or its class, runs under {@code mvn verify} but under no {@code -Dgroups=…}, so whoever
 * runs a tier alone never runs it.
 */
@Tag("engine")
class TierTagsTest {

    /** The tiers, and the integration tests' tag; {@code slow} and {@code isolation} go beside one of them. */
    private static final Set<String> TIERS = Set.of("engine", "lab", "ui", "it");
    private static final Set<String> TEST_ANNOTATIONS = Set.of("org.junit.jupiter.api.Test",
            "org.junit.jupiter.params.ParameterizedTest", "org.junit.jupiter.api.RepeatedTest",
            "org.junit.jupiter.api.TestFactory");

    @Test
    void everyTestClassIsInATier() {
        JavaClasses tests = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages("dev.racelab");
        Set<String> untiered = new TreeSet<>();
        int withTests = 0;
        for (JavaClass test : tests) {
            List<JavaMethod> methods = test.getMethods().stream().filter(method -> method.getAnnotations().stream()
                    .anyMatch(annotation -> TEST_ANNOTATIONS.contains(annotation.getRawType().getName()))).toList();
            if (methods.isEmpty()) {
                continue;
            }
            withTests++;
            List<String> classTags = tagsOf(test);
            for (JavaMethod method : methods) {
                List<String> tags = new ArrayList<>(classTags);
                method.tryGetAnnotationOfType(Tag.class).ifPresent(tag -> tags.add(tag.value()));
                method.tryGetAnnotationOfType(Tags.class).ifPresent(all -> {
                    for (Tag tag : all.value()) {
                        tags.add(tag.value());
                    }
                });
                if (tags.stream().noneMatch(TIERS::contains)) {
                    untiered.add(test.getName() + "." + method.getName());
                }
            }
        }
        // A scan that found no tests would pass whatever the tags said.
        if (withTests < 100) {
            throw new AssertionError("only " + withTests + " test classes found: the scan did not see the tests");
        }
        assertEquals(Set.of(), untiered, "tests in no tier (tag each, or its class, with one of " + TIERS + ")");
    }

    /** The tags on {@code test} and on the classes it is nested in (JUnit's @Nested classes inherit them). */
    private static List<String> tagsOf(JavaClass test) {
        List<String> tags = new ArrayList<>();
        for (Optional<JavaClass> c = Optional.of(test); c.isPresent(); c = c.get().getEnclosingClass()) {
            c.get().tryGetAnnotationOfType(Tag.class).ifPresent(tag -> tags.add(tag.value()));
            c.get().tryGetAnnotationOfType(Tags.class).ifPresent(all -> {
                for (Tag tag : all.value()) {
                    tags.add(tag.value());
                }
            });
        }
        return tags;
    }
}
