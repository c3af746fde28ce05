package io.delayq.service.errors;

import jakarta.ws.rs.BadRequestException;

import java.util.List;

/**
 * A request whose fields do not go together (one given without the other it needs): 400 {@code invalid-fields},
 * with the names of the fields in the problem's {@code fields}.
 */
public final class InvalidFieldsException extends BadRequestException {
    private final List<String> fields;

    public InvalidFieldsException(String message, String... fields) {
        super(message);
        this.fields = List.of(fields);
    }

    public List<String> fields() {
        return fields;
    }
}
