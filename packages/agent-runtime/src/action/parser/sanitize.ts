/**
 * Repairs of the ACTION content before strict XML validation, for what models write all the time:
 * a bare `&` ("Tom & Jerry") and a `<` that cannot start a tag ("a < b", "x<5") are escaped; an XML
 * declaration is blanked. CDATA sections and comments are left untouched. DOCTYPE (entity
 * expansion) is refused.
 *
 * Two texts come out. `xml` is for the parser. `skeleton` is for the validator: the same with CDATA
 * bodies emptied (they cannot change validity, and the validator reads them one character at a
 * time); its offsets map back to the original through `originalOffset`.
 * XML parsers turn `\r` into `\n` everywhere, CDATA included; to keep CDATA byte for byte, a `\r`
 * inside CDATA is swapped for CR_SENTINEL in `xml` and swapped back after parsing.
 */
export interface Sanitized {
  xml: string;
  skeleton: string;
  /** Human-readable repairs, for the call's notes. */
  repairs: string[];
  /** `[offset in skeleton after an edit, total growth so far]`, ascending. */
  shifts: Array<[number, number]>;
  /** Whether CDATA carriage returns were swapped for CR_SENTINEL in `xml`. */
  crInCdata: boolean;
}

export type SanitizeOutcome = { ok: true; value: Sanitized } | { ok: false; offset: number; message: string };

/** A Unicode noncharacter, reserved for internal use: never meaningful in model output. */
export const CR_SENTINEL = "\uFDD0";

const ENTITY = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9._-]*);/y;
const SPECIAL = /[<&]/g;

function canStartTag(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58 || code === 47 || code === 33 || code === 63 || code >= 0xc0;
}

export function sanitizeActionXml(content: string): SanitizeOutcome {
  const xml: string[] = [];
  const skeleton: string[] = [];
  const shifts: Array<[number, number]> = [];
  let copied = 0;
  let growth = 0;
  let amps = 0;
  let lts = 0;
  let declarations = 0;
  let crInCdata = false;
  // Only when the sentinel cannot be confused with the model's own text.
  const keepCr = content.includes("\r") && !content.includes(CR_SENTINEL);
  /** Replaces content[at, at+length) by `by` in both texts. */
  const replace = (at: number, length: number, by: string) => {
    const kept = content.slice(copied, at);
    xml.push(kept, by);
    skeleton.push(kept, by);
    copied = at + length;
    growth += by.length - length;
    shifts.push([at + length + growth, growth]);
  };
  /** Keeps the CDATA body [from, to) in `xml` only. */
  const dropBody = (from: number, to: number) => {
    const kept = content.slice(copied, from);
    let body = content.slice(from, to);
    if (keepCr && body.includes("\r")) {
      body = body.replaceAll("\r", CR_SENTINEL);
      crInCdata = true;
    }
    xml.push(kept, body);
    skeleton.push(kept);
    copied = to;
    growth -= to - from;
    shifts.push([from + growth + (to - from), growth]);
  };
  // Module-level patterns, reset here: this function is not re-entrant.
  const special = SPECIAL;
  const entity = ENTITY;
  special.lastIndex = 0;
  for (let m = special.exec(content); m; m = special.exec(content)) {
    const at = m.index;
    if (m[0] === "&") {
      entity.lastIndex = at;
      if (!entity.test(content)) {
        replace(at, 1, "&amp;");
        amps++;
      }
      continue;
    }
    if (content.startsWith("<![CDATA[", at)) {
      const end = content.indexOf("]]>", at + 9);
      if (end === -1) {
        special.lastIndex = content.length;
      } else {
        dropBody(at + 9, end);
        special.lastIndex = end + 3;
      }
    } else if (content.startsWith("<!--", at)) {
      const end = content.indexOf("-->", at + 4);
      special.lastIndex = end === -1 ? content.length : end + 3;
    } else if (content.startsWith("<!", at)) {
      return { ok: false, offset: at, message: "Declarations such as <!DOCTYPE> or <!ENTITY> are not allowed inside <ACTION>." };
    } else if (content.startsWith("<?", at)) {
      const end = content.indexOf("?>", at + 2);
      if (end === -1) return { ok: false, offset: at, message: "The processing instruction <? is never closed with ?>." };
      // Blanked with spaces (not removed) so that positions stay where they are.
      replace(at, end + 2 - at, " ".repeat(end + 2 - at));
      declarations++;
      special.lastIndex = end + 2;
    } else if (!canStartTag(content.charCodeAt(at + 1))) {
      replace(at, 1, "&lt;");
      lts++;
    }
  }
  const rest = content.slice(copied);
  xml.push(rest);
  skeleton.push(rest);
  const repairs: string[] = [];
  if (amps > 0) repairs.push(`${amps} bare "&" character(s) were read as literal text; wrap such values in <![CDATA[ ... ]]>.`);
  if (lts > 0) repairs.push(`${lts} "<" character(s) that cannot start a tag were read as literal text; wrap such values in <![CDATA[ ... ]]>.`);
  if (declarations > 0) repairs.push("The XML declaration or processing instruction inside <ACTION> was ignored; it is not needed.");
  return { ok: true, value: { xml: xml.join(""), skeleton: skeleton.join(""), repairs, shifts, crInCdata } };
}

/** The offset in the original content of an offset in the skeleton. */
export function originalOffset(s: Sanitized, skeletonOffset: number): number {
  let lo = 0;
  let hi = s.shifts.length - 1;
  let growth = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s.shifts[mid]![0] <= skeletonOffset) {
      growth = s.shifts[mid]![1];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return Math.max(0, skeletonOffset - growth);
}
