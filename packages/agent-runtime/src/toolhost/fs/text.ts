import { createHash } from "node:crypto";

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

const SNIFF_BYTES = 8192;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 text; null for binary data (a NUL byte near the start, or invalid UTF-8). */
export function decodeText(data: Uint8Array): string | null {
  if (data.subarray(0, SNIFF_BYTES).includes(0)) return null;
  try {
    return strictUtf8.decode(data);
  } catch {
    return null;
  }
}

/** Whether the start of a file looks binary, without decoding all of it. */
export function looksBinary(data: Uint8Array): boolean {
  return data.subarray(0, SNIFF_BYTES).includes(0);
}

/** Start offsets (in UTF-16 units) of every line; a trailing newline does not open an extra line. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i + 1 < text.length) starts.push(i + 1);
  }
  return starts;
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  // A streaming decode keeps an incomplete trailing sequence back instead of emitting it.
  return new TextDecoder("utf-8").decode(Buffer.from(text, "utf8").subarray(0, maxBytes), { stream: true });
}
