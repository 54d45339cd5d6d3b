/**
 * Input echoed in an answer or a log line (a kind, an apiVersion, a name, a content type, a path) is cut
 * to a short length: a 1 MiB `kind` must not make a 1 MiB error message or log line.
 */

/** The longest echoed value, in characters, before the ellipsis. */
export const ECHO_LIMIT = 100;

/** `value` as is when short, else its first ECHO_LIMIT characters and an ellipsis. */
export const echo = (value: string, limit: number = ECHO_LIMIT): string => (value.length > limit ? `${value.slice(0, limit)}…` : value);
