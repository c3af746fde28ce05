package io.delayq.service.auth;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.tenants.TenantConfig;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Collectors;

/**
 * On the configuration: every {@code auth.tokens[].tenant} names a tenant of {@code tenants:}, or the configuration is
 * refused naming each token at fault ({@link TokenTenants}), at {@code check} as at {@code server}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = DeclaredTenants.Check.class)
public @interface DeclaredTenants {
    String message() default "every auth.tokens[].tenant must name a tenant of tenants:";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** The check, with a message naming the tokens. */
    final class Check implements ConstraintValidator<DeclaredTenants, DelayqConfiguration> {
        @Override
        public boolean isValid(DelayqConfiguration config, ConstraintValidatorContext context) {
            if (config == null || config.getAuth() == null || config.getTenants() == null) {
                return true;
            }
            String wrong = TokenTenants.unknown(config.getAuth().getTokens(), config.getTenants().stream()
                    .map(TenantConfig::getName).collect(Collectors.toSet()));
            if (wrong == null) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            // as a literal: a token's name must not be read as a message expression
            context.buildConstraintViolationWithTemplate("auth.tokens: " + wrong.replace("\\", "\\\\")
                    .replace("{", "\\{").replace("}", "\\}").replace("$", "\\$")).addConstraintViolation();
            return false;
        }
    }
}
