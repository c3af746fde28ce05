package io.delayq.postgres;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.jdbi.v3.sqlobject.SqlObjects;
import org.jdbi.v3.sqlobject.locator.SqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.lang.reflect.Method;
import javax.sql.DataSource;

/**
 * Where the statements of a JDBI SQL object are: one file each in the {@code sql/} folder of its package, named by
 * its {@code @SqlQuery} or {@code @SqlUpdate} value, so {@code @SqlQuery("breaker_failure")} on a type of
 * {@code io.delayq.postgres} is {@code io/delayq/postgres/sql/breaker_failure.sql}. One folder per dialect, as
 * storage-redis keeps its scripts in {@code io/delayq/redis/lua/}, whichever Java type runs a statement. Read by
 * JDBI's classpath locator with comments removed, as {@code @UseClasspathSqlLocator} reads them.
 */
public final class StatementFiles implements SqlLocator {
    private static final ClasspathSqlLocator FILES = ClasspathSqlLocator.removingComments();

    private StatementFiles() {
    }

    /**
     * A {@link Jdbi} on the pool, with the SQL object and PostgreSQL plugins, whose SQL objects read their statements
     * from their package's {@code sql/} folder.
     */
    public static Jdbi jdbi(DataSource dataSource) {
        Jdbi jdbi = Jdbi.create(dataSource).installPlugin(new SqlObjectPlugin()).installPlugin(new PostgresPlugin());
        jdbi.getConfig(SqlObjects.class).setSqlLocator(new StatementFiles());
        return jdbi;
    }

    @Override
    public String locate(Class<?> sqlObjectType, Method method, ConfigRegistry config) {
        String path = sqlObjectType.getPackageName().replace('.', '/') + "/sql/" + name(method) + ".sql";
        return FILES.getResource(sqlObjectType.getClassLoader(), path);
    }

    private static String name(Method method) {
        SqlQuery query = method.getAnnotation(SqlQuery.class);
        SqlUpdate update = method.getAnnotation(SqlUpdate.class);
        String name = query != null ? query.value() : update != null ? update.value() : "";
        if (name.isEmpty()) {
            throw new IllegalStateException(method + " names no statement: give its @SqlQuery or @SqlUpdate the name"
                    + " of its file in the sql/ folder");
        }
        return name;
    }
}
