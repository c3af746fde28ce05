package io.delayq.bench;

import java.util.Map;

/**
 * The bench PostgreSQL as a {@link Backend}: a new database for every run (the previous one of the implementation is
 * dropped), the size of its tables and indexes for the bytes, and PostgreSQL's CPU time and WAL for the cost.
 */
public final class PostgresBackend implements Backend {
    private final BenchPostgres pg;
    private String owner;
    private String database;

    public PostgresBackend(BenchPostgres pg) {
        this.pg = pg;
    }

    @Override
    public String tablePrefix() {
        return "PG-";
    }

    @Override
    public String fresh(String who) throws Exception {
        if (owner != null && !owner.equals(who)) {
            pg.dropDatabaseOf(owner);
        }
        owner = who;
        database = pg.freshDatabase(owner);
        return pg.jdbcUrl(database);
    }

    @Override
    public long storedBytes() {
        return database == null ? 0 : pg.storedBytes(database);
    }

    @Override
    public Mark mark() {
        BenchPostgres.Mark m = pg.mark(null);
        return () -> new PgCost(pg.since(m));
    }

    @Override
    public void clear() {
        if (owner != null) {
            try {
                pg.dropDatabaseOf(owner);
            } catch (Exception e) {
                throw new IllegalStateException("cannot drop the database of " + owner + ": " + e.getMessage(), e);
            }
        }
        owner = null;
        database = null;
    }

    /** PostgreSQL CPU ms and WAL bytes of a run. */
    record PgCost(BenchPostgres.Spent spent) implements Cost {
        @Override
        public void into(Map<String, Double> metrics, long jobs) {
            spent.into(metrics, "", jobs);
        }

        @Override
        public void intoBulk(Map<String, Double> metrics, long jobs) {
            spent.into(metrics, "bulk_", jobs);
        }

        @Override
        public Map<String, long[]> commands() {
            return Map.of();
        }

        @Override
        public String brief(Map<String, Double> metrics) {
            return String.format("%.0f PostgreSQL CPU ms/1k, %.0f WAL B/job", metrics.get("pg_cpu_ms_per_1k"),
                    metrics.get("pg_wal_bytes_per_job"));
        }
    }
}
