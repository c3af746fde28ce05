package io.delayq.service.config;

import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobStoreFactory;
import io.delayq.core.archive.JobArchiveFactory;
import io.dropwizard.jackson.Jackson;

import java.util.Map;
import java.util.Optional;

/**
 * The one place that names the store and the archive a configuration gets when it leaves out its {@code store:} or
 * {@code archive:} block: the embedded default ({@code type: redis}, {@code type: mongo}; docs/configuration.md
 * documents these defaults).
 *
 * <p>They are named by {@code type}, not by class, and built exactly as the configuration's {@code store: {type: …}}
 * line would be — through Dropwizard's discovery of {@code JobStoreFactory} / {@code JobArchiveFactory}
 * implementations ({@code META-INF/services}) — so the service's configuration has no compile-time tie to any store
 * module. A jar without the default store still runs, as long as its configuration names a store that is there.
 *
 * <p>The archive a configuration gets without an {@code archive:} block follows its store: the archive of the
 * store's own type when there is one ({@code store: {type: postgres}} gets {@code archive: {type: postgres}} on the
 * same database, so a deployment on PostgreSQL alone needs no second server), else {@value #ARCHIVE_TYPE}.
 */
public final class DefaultStores {
    /** The {@code store.type} of a configuration without a {@code store:} block. */
    public static final String STORE_TYPE = "redis";
    /** The {@code archive.type} of a configuration without an {@code archive:} block. */
    public static final String ARCHIVE_TYPE = "mongo";

    /** Resolves {@code type} names as configuration parsing does (Dropwizard's mapper knows every discoverable type). */
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();

    private DefaultStores() {
    }

    /** What {@code store: {type: redis}} gives, or empty when no such store is on the classpath. */
    public static Optional<JobStoreFactory> store() {
        return byType(JobStoreFactory.class, STORE_TYPE);
    }

    /** What {@code archive: {type: mongo}} gives, or empty when no such archive is on the classpath. */
    public static Optional<JobArchiveFactory> archive() {
        return byType(JobArchiveFactory.class, ARCHIVE_TYPE);
    }

    /**
     * The archive of a configuration whose {@code store:} is {@code store} and that has no {@code archive:} block: the
     * archive of the store's type if there is one, else {@link #archive()}.
     */
    public static Optional<JobArchiveFactory> archiveFor(JobStoreFactory store) {
        JsonTypeName type = store == null ? null : store.getClass().getAnnotation(JsonTypeName.class);
        if (type != null) {
            Optional<JobArchiveFactory> same = byType(JobArchiveFactory.class, type.value());
            if (same.isPresent()) {
                return same;
            }
        }
        return archive();
    }

    /** The factory {@code {type: <type>}} with every other setting at its default, or empty when the type is unknown. */
    static <T> Optional<T> byType(Class<T> factory, String type) {
        try {
            return Optional.of(MAPPER.convertValue(Map.of("type", type), factory));
        } catch (IllegalArgumentException unknownType) {
            return Optional.empty();
        }
    }
}
