import { createHash } from "node:crypto";
import type { ToolResult } from "@weft/types";

const REDACTED = "[REDACTED]";
/** Argument names whose values are never recorded. */
const SECRET_NAME = /key|token|secret|passw|credential|auth|cookie|private/i;
/** Arguments whose text is file content: recorded as size and digest only. */
const CONTENT_NAME = /^(content|patch)$/;
const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 3;

/** Secrets recognisable by their shape, wherever they appear in text. */
const SECRET_VALUES: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];
const NAME = "[A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|pwd|credential|authorization)[A-Za-z0-9_.-]*";
// A value already redacted, or a scheme the Bearer rule handles, is left for that rule.
const VALUE = `(?!\\[REDACTED\\]|Bearer |Basic )("[^"]*"|'[^']*'|[^\\s"'&]+)`;
/** `NAME=value`, `name: value`, and options `--api-key value`: the value goes. */
const SECRET_ASSIGNMENTS = [new RegExp(`(${NAME})(=|:\\s*)${VALUE}`, "gi"), new RegExp(`(--?${NAME})(\\s+)${VALUE}`, "gi")];
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi;

export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  for (const pattern of SECRET_ASSIGNMENTS) out = out.replace(pattern, (_match, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  return out;
}

function shorten(text: string): string {
  const clean = redactText(text);
  return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…(${text.length} chars)` : clean;
}

function summariseValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return shorten(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : "{…}";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => summariseValue(v, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `…(${value.length - MAX_ITEMS} more)`] : items;
  }
  return summariseRecord(value as Record<string, unknown>, depth + 1);
}

function summariseRecord(record: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (SECRET_NAME.test(key)) out[key] = REDACTED;
    else if (CONTENT_NAME.test(key) && typeof value === "string") {
      out[key] = { bytes: Buffer.byteLength(value, "utf8"), sha256: createHash("sha256").update(value).digest("hex") };
    } else out[key] = summariseValue(value, depth);
  }
  return out;
}

/** The arguments of a call as they may be recorded: secrets redacted, file content reduced to size and digest, long text shortened. */
export function summariseArgs(args: Record<string, unknown>): Record<string, unknown> {
  return summariseRecord(args, 0);
}

const RESULT_FIELDS = [
  "path",
  "bytes",
  "bytesWritten",
  "sha256",
  "sha256Before",
  "sha256After",
  "created",
  "applied",
  "truncated",
  "lineStart",
  "lineEnd",
  "totalLines",
  "cwd",
  "exitCode",
  "signal",
  "stdoutTruncated",
  "stderrTruncated",
  "killedBy",
  "durationMs",
  "status",
  "attempts",
] as const;

/** What a result says, without its content: the fields that describe it, and counts. */
export function summariseResult(result: ToolResult): Record<string, unknown> {
  if (!result.ok) return { ok: false, code: result.error.code, message: shorten(result.error.message) };
  const out: Record<string, unknown> = { ok: true };
  for (const field of RESULT_FIELDS) if (result[field] !== undefined) out[field] = result[field];
  for (const list of ["matches", "entries", "entriesPreview"] as const) {
    const value = result[list];
    if (Array.isArray(value)) out[`${list}Count`] = value.length;
  }
  for (const stream of ["stdout", "stderr"] as const) {
    const value = result[stream];
    if (typeof value === "string") out[`${stream}Bytes`] = Buffer.byteLength(value, "utf8");
  }
  return out;
}

/** The limits a call ran into, for the audit record. */
export function limitsHit(result: ToolResult): string[] {
  if (!result.ok) {
    const byCode: Record<string, string> = { E_READ_LIMIT: "read-limit", E_WRITE_LIMIT: "write-limit", E_TIMEOUT: "timeout" };
    const hit = byCode[result.error.code];
    return hit ? [hit] : [];
  }
  const hits: string[] = [];
  if (result.truncated === true) hits.push("truncated");
  if (result.stdoutTruncated === true) hits.push("stdout-cap");
  if (result.stderrTruncated === true) hits.push("stderr-cap");
  if (result.killedBy === "output-limit") hits.push("output-limit");
  return hits;
}
