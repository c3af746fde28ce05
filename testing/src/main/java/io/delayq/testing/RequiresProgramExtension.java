package io.delayq.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.io.File;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link RequiresProgram}'s logic: disables each test whose class or method names a program that is not installed,
 * and skips the class's {@code @BeforeAll} / {@code @AfterAll} methods when the class names one (they would start what
 * is missing).
 */
public final class RequiresProgramExtension implements ExecutionCondition, InvocationInterceptor {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            // the class itself runs, so that each of its tests is reported, as skipped
            return ConditionEvaluationResult.enabled("tests are checked one by one");
        }
        List<RequiresProgram> required = new ArrayList<>(declared(context.getRequiredTestClass()));
        required.addAll(declared(context.getRequiredTestMethod()));
        List<String> missing = required.stream().filter(r -> !installed(r.value())).map(RequiresProgramExtension::why)
                .toList();
        return missing.isEmpty()
                ? ConditionEvaluationResult.enabled("every program it needs is installed")
                : ConditionEvaluationResult.disabled(String.join("; ", missing));
    }

    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
                                         ExtensionContext context) throws Throwable {
        runUnlessAProgramIsMissing(invocation, context);
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
                                        ExtensionContext context) throws Throwable {
        runUnlessAProgramIsMissing(invocation, context);
    }

    private static void runUnlessAProgramIsMissing(Invocation<Void> invocation, ExtensionContext context)
            throws Throwable {
        Optional<RequiresProgram> missing = declared(context.getRequiredTestClass()).stream()
                .filter(r -> !installed(r.value())).findFirst();
        if (missing.isPresent()) {
            invocation.skip();
            System.err.println("SKIPPED " + context.getRequiredTestClass().getSimpleName() + ": " + why(missing.get()));
        } else {
            invocation.proceed();
        }
    }

    private static List<RequiresProgram> declared(AnnotatedElement element) {
        return AnnotationSupport.findRepeatableAnnotations(element, RequiresProgram.class);
    }

    private static String why(RequiresProgram r) {
        return r.value() + " is not installed: install the Debian package " + r.debianPackage()
                + " (apt-get install " + r.debianPackage() + ") to run this test";
    }

    /** An absolute path that is executable, or a name found executable on the PATH. */
    static boolean installed(String program) {
        if (program.contains(File.separator)) {
            return Files.isExecutable(Path.of(program));
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
