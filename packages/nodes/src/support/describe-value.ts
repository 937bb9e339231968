/** A short, human description of a value for error messages: `a string ("abc")`, `an array of 3 items`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  switch (typeof value) {
    case "string":
      return `a string (${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)})`;
    case "number":
      return Number.isFinite(value) ? `the number ${value}` : `the non-finite number ${value}`;
    case "boolean":
      return `the boolean ${value}`;
    case "object":
      return `an object with keys ${
        Object.keys(value as object)
          .slice(0, 5)
          .map((k) => JSON.stringify(k))
          .join(", ") || "(none)"
      }`;
    default:
      return `a ${typeof value}`;
  }
}

/** Plain JSON-style object (not an array, not null, not a class instance such as Date). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
