import type { XmlElement, XmlNode } from "./xml-tree.ts";

/** A parameter value as written in XML, before the schema converts it: text, list or object. */
export type RawValue = string | RawValue[] | RawObject;
export interface RawObject {
  [key: string]: RawValue;
}

const ENTITY = /&(#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot|apos);/g;
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Decodes the five XML entities and character references (invalid code points stay literal). */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, ref: string) => {
    if (ref[0] !== "#") return NAMED[ref] ?? whole;
    const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : whole;
  });
}

export function isWhitespace(text: string): boolean {
  return text.trim() === "";
}

/**
 * The text of an element made only of text and CDATA: CDATA byte for byte, the rest entity-decoded;
 * an ordinary value is trimmed, and around CDATA only the whitespace outside it is dropped.
 * A `]]>` written inside CDATA without splitting it ends the section early; when all that follows
 * is text ending in another `]]>`, the intended value is put back together (noted).
 */
export function textValue(nodes: readonly XmlNode[], notes: string[], where: string): string {
  const firstCdata = nodes.findIndex((n) => n.kind === "cdata");
  if (firstCdata === -1) {
    let raw = "";
    for (const n of nodes) if (n.kind === "text") raw += n.text;
    return decodeEntities(raw).trim();
  }
  let lastCdata = firstCdata;
  nodes.forEach((n, i) => {
    if (n.kind === "cdata") lastCdata = i;
  });
  let out = "";
  nodes.forEach((n, i) => {
    if (n.kind === "element") return;
    if (n.kind === "cdata") {
      out += n.text;
      return;
    }
    if (i < firstCdata) {
      if (!isWhitespace(n.text)) out += decodeEntities(n.text).trimStart();
      return;
    }
    const endsValue = i > lastCdata;
    const close = n.text.lastIndexOf("]]>");
    if (endsValue && nodes[i - 1]?.kind === "cdata" && close !== -1 && isWhitespace(n.text.slice(close + 3))) {
      notes.push(`The value of ${where} contains "]]>" inside CDATA; it was read as part of the value. Next time write it as "]]]]><![CDATA[>".`);
      out += "]]>" + decodeEntities(n.text.slice(0, close));
      return;
    }
    const decoded = decodeEntities(n.text);
    out += endsValue ? (isWhitespace(decoded) ? "" : decoded.trimEnd()) : decoded;
  });
  return out;
}

/** Child elements grouped by tag name, in order of first appearance. */
export function groupChildren(el: XmlElement): Map<string, XmlElement[]> {
  const groups = new Map<string, XmlElement[]>();
  for (const n of el.children) {
    if (n.kind !== "element") continue;
    const list = groups.get(n.name);
    if (list) list.push(n);
    else groups.set(n.name, [n]);
  }
  return groups;
}

/**
 * The value of a parameter element: its text; a list when all its children are `<item>`; otherwise
 * an object of its children (a repeated child becomes a list).
 */
export function elementValue(el: XmlElement, notes: string[], where: string): RawValue {
  if (el.attrs.length > 0) notes.push(`Attributes on ${where} (${el.attrs.map(([k]) => k).join(", ")}) were ignored.`);
  const groups = groupChildren(el);
  if (groups.size === 0) return textValue(el.children, notes, where);
  if (el.children.some((n) => n.kind !== "element" && !isWhitespace(n.text))) {
    notes.push(`Text directly inside ${where}, next to its child tags, was ignored.`);
  }
  if (groups.size === 1 && groups.has("item")) return groups.get("item")!.map((item, i) => elementValue(item, notes, `${where}<item>[${i}]`));
  const obj: RawObject = {};
  for (const [name, list] of groups) {
    const path = `${where}<${name}>`;
    obj[name] = list.length === 1 ? elementValue(list[0]!, notes, path) : list.map((item, i) => elementValue(item, notes, `${path}[${i}]`));
  }
  return obj;
}
