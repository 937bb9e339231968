/**
 * Repairs of the ACTION content before strict XML validation, for what models write all the time:
 * a bare `&` ("Tom & Jerry") and a `<` that cannot start a tag ("a < b", "x<5") are escaped; an XML
 * declaration is blanked. CDATA sections and comments are left untouched. Offsets in the repaired
 * text map back to the original through `originalOffset`. DOCTYPE (entity expansion) is refused.
 */
export interface Sanitized {
  xml: string;
  /** Human-readable repairs, for the call's notes. */
  repairs: string[];
  /** `[end of a replacement in xml, total growth so far]`, ascending. */
  shifts: Array<[number, number]>;
}

export type SanitizeOutcome = { ok: true; value: Sanitized } | { ok: false; offset: number; message: string };

const ENTITY = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9._-]*);/y;
const SPECIAL = /[<&]/g;

function canStartTag(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58 || code === 47 || code === 33 || code === 63 || code >= 0xc0
  );
}

export function sanitizeActionXml(content: string): SanitizeOutcome {
  const pieces: string[] = [];
  const shifts: Array<[number, number]> = [];
  let copied = 0;
  let growth = 0;
  let amps = 0;
  let lts = 0;
  let declarations = 0;
  const replace = (at: number, length: number, by: string) => {
    pieces.push(content.slice(copied, at), by);
    copied = at + length;
    growth += by.length - length;
    shifts.push([at + length + growth, growth]);
  };
  const special = new RegExp(SPECIAL.source, SPECIAL.flags);
  const entity = new RegExp(ENTITY.source, ENTITY.flags);
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
      special.lastIndex = end === -1 ? content.length : end + 3;
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
  pieces.push(content.slice(copied));
  const repairs: string[] = [];
  if (amps > 0) repairs.push(`${amps} bare "&" character(s) were read as literal text; wrap such values in <![CDATA[ ... ]]>.`);
  if (lts > 0) repairs.push(`${lts} "<" character(s) that cannot start a tag were read as literal text; wrap such values in <![CDATA[ ... ]]>.`);
  if (declarations > 0) repairs.push("The XML declaration or processing instruction inside <ACTION> was ignored; it is not needed.");
  return { ok: true, value: { xml: pieces.join(""), repairs, shifts } };
}

/** The offset in the original content of an offset in the repaired xml. */
export function originalOffset(s: Sanitized, xmlOffset: number): number {
  let lo = 0;
  let hi = s.shifts.length - 1;
  let growth = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s.shifts[mid]![0] <= xmlOffset) {
      growth = s.shifts[mid]![1];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return Math.max(0, xmlOffset - growth);
}
