package io.delayq.bench.report;

import java.util.List;

/**
 * A results table: which runs it shows and how.
 *
 * @param table   the run table id its rows come from (e.g. {@code W1})
 * @param title   Markdown heading
 * @param intro   one paragraph under the heading
 * @param columns the columns after the implementation column
 * @param ratio   whether to add a "delayq ÷ best peer" row
 */
public record TableSpec(String table, String title, String intro, List<Column> columns, boolean ratio) {
}
