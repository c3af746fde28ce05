package io.delayq.postgres;

import io.delayq.core.breaker.CircuitState;
import io.delayq.core.breaker.OriginCircuit;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/** Reads a {@code delayq_circuits} row into an {@link OriginCircuit}. */
final class CircuitRowMapper implements RowMapper<OriginCircuit> {

    @Override
    public OriginCircuit map(ResultSet rs, StatementContext ctx) throws SQLException {
        Long nextProbeAt = JobRowMapper.nullableMillis(rs, "next_probe_at");
        long probeIntervalMs = rs.getLong("probe_interval_ms"); // NULL (closed) reads as 0, as OriginCircuit has it
        return new OriginCircuit(rs.getString("origin"),
                CircuitState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
                rs.getInt("failures"),
                JobRowMapper.nullableMillis(rs, "opened_at"),
                JobRowMapper.nullableMillis(rs, "closed_at"),
                nextProbeAt == null ? 0 : nextProbeAt,
                probeIntervalMs,
                rs.getLong("held"));
    }
}
