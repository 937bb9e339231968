import { ApiError } from "./errors.ts";

/** Deeper bodies are refused: no document Weft stores needs more, and deeper ones break SQLite's JSON functions and recursive code. */
export const MAX_BODY_DEPTH = 64;

/** Keys that would reach object prototypes when a body is merged or copied with ordinary JavaScript. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const REPLACEMENT_BYTES = Buffer.from("\uFFFD");

/** The body's bytes as text; invalid UTF-8 is refused (not silently replaced), naming the first bad byte. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Byte(bytes);
    throw new ApiError("INVALID_UTF8", `The request body is not valid UTF-8 (the first bad byte is at offset ${offset}); send the JSON encoded as UTF-8.`, { offset });
  }
}

/** Where lenient decoding first put a U+FFFD that the bytes do not hold themselves. */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenient = buffer.toString("utf8");
  for (let at = lenient.indexOf("\uFFFD"); at !== -1; at = lenient.indexOf("\uFFFD", at + 1)) {
    const offset = Buffer.byteLength(lenient.slice(0, at));
    if (!buffer.subarray(offset, offset + REPLACEMENT_BYTES.length).equals(REPLACEMENT_BYTES)) return offset;
  }
  return 0;
}

/** Refuses JSON text nesting deeper than MAX_BODY_DEPTH, before it is parsed (so a huge depth cannot exhaust the parser). */
export function checkDepth(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return; // unterminated: JSON.parse reports it
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) {
        const offset = Buffer.byteLength(text.slice(0, i));
        throw new ApiError("JSON_TOO_DEEP", `The request body nests deeper than ${MAX_BODY_DEPTH} levels (at byte ${offset}); flatten it, or send deep data as a JSON string.`, {
          limit: MAX_BODY_DEPTH,
          offset,
        });
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/** The index of the quote closing the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** Refuses `__proto__`, `constructor` and `prototype` as keys anywhere in a parsed body, naming where. */
export function checkKeys(value: unknown, path: (string | number)[] = []): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      checkKeys(value[i], path);
      path.pop();
    }
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    path.push(key);
    if (FORBIDDEN_KEYS.has(key)) {
      throw new ApiError("FORBIDDEN_KEY", `body.${path.join(".")}: the key "${key}" is not allowed in a request body (it can alter object prototypes); rename it.`, { path: [...path], key });
    }
    checkKeys(item, path);
    path.pop();
  }
}
