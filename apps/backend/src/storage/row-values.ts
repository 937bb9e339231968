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

/**
 * A record's optional fields from nullable columns, written once for every decoder: each field whose value is NULL
 * (or undefined) is left out, the others kept as they are.
 */
export function present<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) if (value !== null && value !== undefined) kept[field] = value;
  return kept as { [K in keyof T]?: NonNullable<T[K]> };
}

/**
 * A record's row, a column per field in camelCase (`Table.camelCase`), as both drivers answer it: an optional field
 * nullable, a flag 0/1 or BOOLEAN, the `Int64` fields (epoch milliseconds) BIGINT, which PostgreSQL answers as text.
 */
export type RowOf<T, Int64 extends keyof T = never> = {
  [K in keyof T]-?:
    (Exclude<T[K], undefined> extends boolean ? number | boolean : K extends Int64 ? Exclude<T[K], undefined> | string : Exclude<T[K], undefined>) | (undefined extends T[K] ? null : never);
};

/**
 * NULL for each optional field of a record: spread under a record being saved, a replaced row keeps none of its old
 * values, and an optional field added later without its NULL here does not compile.
 */
export type NullsFor<T> = { [K in keyof T as undefined extends T[K] ? K : never]-?: null };

/** A nullable JSON column: undefined for NULL (a schema's `.optional().parse` checks it). */
export function optionalJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}
