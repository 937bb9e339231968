import { isPlainObject } from "./describe-value.ts";

/**
 * Truthiness used by routing and filtering nodes: JavaScript's, except that values which read as
 * "nothing" in a workflow — an empty array, an empty object, and the strings "false" and "0" — are false.
 */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  if (typeof value === "string") {
    const t = value.trim().toLowerCase();
    return t !== "" && t !== "false" && t !== "0";
  }
  return Boolean(value);
}
