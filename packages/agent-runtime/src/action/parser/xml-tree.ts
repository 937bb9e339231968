import { XMLParser, XMLValidator } from "fast-xml-parser";
import { messageOf } from "@weft/types";

/**
 * The ACTION content as a small ordered tree, from fast-xml-parser. Text keeps its raw form
 * (entities are decoded later, outside CDATA only); CDATA sections stay separate nodes.
 */
export type XmlNode = XmlElement | { kind: "text"; text: string } | { kind: "cdata"; text: string };
export interface XmlElement {
  kind: "element";
  name: string;
  attrs: Array<[string, string]>;
  children: XmlNode[];
}

export type XmlOutcome = { ok: true; root: XmlElement } | { ok: false; message: string; line?: number; column?: number };

/** The wrapper tag the content is validated in: its messages then name `ACTION` as the model wrote it. */
export const WRAPPER_OPEN = "<ACTION>";
export const WRAPPER_CLOSE = "</ACTION>";
export const MAX_DEPTH = 64;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  allowBooleanAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  cdataPropName: "#cdata",
  commentPropName: "#comment",
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_DEPTH,
  // Names are kept as written (element objects are only read through own keys).
  onDangerousProperty: (name: string) => name,
});

/**
 * Validates `<ACTION>` + skeleton + `</ACTION>` (line and column of the first error refer to it) and
 * parses `<ACTION>` + xml + `</ACTION>` (see sanitize: the skeleton is the xml without CDATA bodies).
 * `crSentinel`: the character standing for `\r` inside CDATA, put back here.
 */
export function parseActionXml(xml: string, skeleton: string, crSentinel?: string): XmlOutcome {
  const valid = XMLValidator.validate(WRAPPER_OPEN + skeleton + WRAPPER_CLOSE, { allowBooleanAttributes: true });
  if (valid !== true) return { ok: false, message: readableValidatorMessage(valid.err.msg), line: valid.err.line, column: valid.err.col };
  let parsed: unknown;
  try {
    parsed = parser.parse(WRAPPER_OPEN + xml + WRAPPER_CLOSE);
  } catch (err) {
    const msg = messageOf(err);
    if (/nested tags/i.test(msg)) return { ok: false, message: `Tags are nested more than ${MAX_DEPTH} levels deep.` };
    const reserved = /Invalid (?:tag )?name: "?([^"\s]+)"?/.exec(msg);
    if (reserved) return { ok: false, message: `<${reserved[1]}> is a reserved name and cannot be used as a tag.` };
    return { ok: false, message: msg };
  }
  const top = Array.isArray(parsed) ? toNodes(parsed, crSentinel) : [];
  const root = top.find((n): n is XmlElement => n.kind === "element");
  return root ? { ok: true, root } : { ok: false, message: "The <ACTION> block could not be read." };
}

/** fast-xml-parser reports tags left open at the end as "Invalid '[ ... ]' found." */
function readableValidatorMessage(msg: string): string {
  const open = /^Invalid '(\[[\s\S]*\])' found\.$/.exec(msg);
  if (!open) return msg;
  try {
    const names = JSON.parse(open[1]!) as unknown;
    if (Array.isArray(names)) return `Tag(s) ${names.map((n) => `<${String(n)}>`).join(", ")} are never closed.`;
  } catch {
    // not the list we expected: keep the original message
  }
  return msg;
}

function toNodes(items: unknown[], crSentinel: string | undefined): XmlNode[] {
  const out: XmlNode[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key === ":@") continue;
      const value = record[key];
      if (key === "#text") out.push({ kind: "text", text: String(value) });
      else if (key === "#cdata") {
        const text = Array.isArray(value) ? value.map((v) => String((v as Record<string, unknown>)["#text"] ?? "")).join("") : "";
        out.push({ kind: "cdata", text: crSentinel ? text.replaceAll(crSentinel, "\r") : text });
      } else if (key === "#comment") continue;
      else out.push({ kind: "element", name: key, attrs: attributesOf(record[":@"]), children: Array.isArray(value) ? toNodes(value, crSentinel) : [] });
    }
  }
  return out;
}

function attributesOf(raw: unknown): Array<[string, string]> {
  if (typeof raw !== "object" || raw === null) return [];
  return Object.keys(raw).map((k) => {
    const v = (raw as Record<string, unknown>)[k];
    return [k, v === true ? "true" : String(v)];
  });
}
