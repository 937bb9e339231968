/**
 * Column values as either engine's driver hands them over, for decoders shared by both: SQLite answers
 * numbers and 0/1 flags; PostgreSQL answers BIGINT as text (it may exceed 2^53; epoch milliseconds are
 * well inside) and BOOLEAN as a boolean.
 */

/** A BIGINT or INTEGER column (epoch milliseconds, ids). */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

/** A nullable numeric column: undefined for NULL. */
export function optionalNum(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : num(value);
}

/** A flag column: SQLite's INTEGER 0/1 or PostgreSQL's BOOLEAN. */
export function flag(value: number | boolean): boolean {
  return value === true || value === 1;
}
