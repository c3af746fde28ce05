package io.delayq.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement file written with JDBI's named binds ({@code :name}), turned once into JDBC's positional form for
 * {@link BatchTransitions}: the same files stay readable, shared with {@code TransitionPlansTest}, which runs them
 * through JDBI. {@code --} comments are dropped (the server need not parse them on every prepare), {@code ::} casts and
 * quoted text are left as they are.
 */
final class NamedSql {
    private final String sql;
    private final List<String> names;

    private NamedSql(String sql, List<String> names) {
        this.sql = sql;
        this.names = names;
    }

    /** The statement {@code io/delayq/postgres/sql/<name>.sql}. */
    static NamedSql load(String name) {
        String resource = "/io/delayq/postgres/sql/" + name + ".sql";
        try (InputStream in = NamedSql.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("statement " + resource + " is missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read statement " + resource, e);
        }
    }

    static NamedSql parse(String text) {
        StringBuilder out = new StringBuilder(text.length());
        List<String> names = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                // E'…' strings take backslash escapes (E'\n' in enqueue.sql); others only a doubled quote
                boolean escapes = c == '\'' && i > 0 && (text.charAt(i - 1) == 'E' || text.charAt(i - 1) == 'e');
                int end = i + 1;
                while (end < n) {
                    char d = text.charAt(end);
                    if (escapes && d == '\\') {
                        end += 2;
                    } else if (d == c && end + 1 < n && text.charAt(end + 1) == c) {
                        end += 2;
                    } else if (d == c) {
                        break;
                    } else {
                        end++;
                    }
                }
                out.append(text, i, Math.min(n, end + 1));
                i = end + 1;
            } else if (c == ':' && i + 1 < n && text.charAt(i + 1) == ':') {
                out.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < n && Character.isJavaIdentifierStart(text.charAt(i + 1))) {
                int end = i + 1;
                while (end < n && Character.isJavaIdentifierPart(text.charAt(end))) {
                    end++;
                }
                names.add(text.substring(i + 1, end));
                out.append('?');
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return new NamedSql(out.toString().strip(), List.copyOf(names));
    }

    String sql() {
        return sql;
    }

    /** Sets every occurrence of {@code :name}. */
    void set(PreparedStatement statement, String name, Object value) throws SQLException {
        boolean found = false;
        for (int k = 0; k < names.size(); k++) {
            if (names.get(k).equals(name)) {
                statement.setObject(k + 1, value);
                found = true;
            }
        }
        if (!found) {
            throw new IllegalArgumentException("the statement has no bind :" + name);
        }
    }

    List<String> names() {
        return names;
    }
}
