package io.delayq.testing;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test (or every test of a class) that drives a program no Maven artifact ships: without it, each test is reported
 * as skipped, with a message naming the Debian package to install, and the class's {@code @BeforeAll} and
 * {@code @AfterAll} methods do not run. Skipped test by test, not the class as a whole: a class aborted before its
 * tests shows as "Tests run: 0" in Maven's summary, which reads like a class that has no tests.
 *
 * <p>{@code value} is a program name looked up on the {@code PATH}, or an absolute path. Repeat the annotation for a
 * test that needs several.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(RequiresProgram.All.class)
@ExtendWith(RequiresProgramExtension.class)
public @interface RequiresProgram {
    /** The program: a name on the PATH ({@code chromium}) or an absolute path ({@code /usr/bin/prometheus}). */
    String value();

    /** The Debian package that installs it. */
    String debianPackage();

    /** The repeated form. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @ExtendWith(RequiresProgramExtension.class)
    @interface All {
        RequiresProgram[] value();
    }
}
