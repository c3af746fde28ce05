package io.delayq.postgres;

import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.sqlobject.SqlObjects;
import org.jdbi.v3.sqlobject.locator.SqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.lang.reflect.Method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every statement of every SQL object is a file where {@link StatementFiles} looks for it: a file renamed or missing
 * fails here, not at the first call of its method in production.
 */
class StatementFilesTest {
    private static final String[] SQL_OBJECTS = {"io.delayq.postgres.JobTransitions", "io.delayq.postgres.JobQueries",
        "io.delayq.postgres.BreakerStatements", "io.delayq.postgres.TenancyStatements",
        "io.delayq.postgres.BucketStatements", "io.delayq.postgres.archive.ArchiveStatements",
        "io.delayq.postgres.archive.OperatorLogStatements"};

    private final SqlLocator locator = locator();

    @Test
    void everyStatementIsAFileInTheSqlFolderOfItsPackage() throws Exception {
        int statements = 0;
        for (String name : SQL_OBJECTS) {
            Class<?> type = Class.forName(name);
            for (Method method : type.getDeclaredMethods()) {
                String sql = locator.locate(type, method, new ConfigRegistry());
                assertThat(sql).as("%s.%s", type.getSimpleName(), method.getName()).isNotBlank()
                        .doesNotContain("-- ");
                statements++;
            }
        }
        assertThat(statements).isGreaterThan(50);
    }

    @Test
    void aStatementWithoutANameIsRefusedWithTheFixNamed() throws Exception {
        Method unnamed = Unnamed.class.getDeclaredMethod("now");

        assertThatThrownBy(() -> locator.locate(Unnamed.class, unnamed, new ConfigRegistry()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("@SqlQuery");
    }

    interface Unnamed {
        @SqlQuery
        long now();
    }

    private static SqlLocator locator() {
        return StatementFiles.jdbi(new PGSimpleDataSource()).getConfig(SqlObjects.class).getSqlLocator();
    }
}
