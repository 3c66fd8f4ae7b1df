/**
 * Validated value types: every identifier that meets a path, a configfs name or a command argument
 * is one of these first. Constructors throw {@link pillar.api.value.InvalidValueException}, which
 * services answer with INVALID_ARGUMENT before touching anything.
 */
package pillar.api.value;
