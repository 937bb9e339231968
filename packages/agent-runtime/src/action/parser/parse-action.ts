import type { ManifestEntry } from "../manifest/entry.ts";
import { Manifest } from "../manifest/manifest.ts";
import { MAX_ACTION_TAGS, locateAction, type LocateOutput } from "./locate.ts";
import { emptyActionMessage, invalidParamsMessage, malformedMessage, multipleToolsMessage, textInsteadOfToolMessage, truncatedMessage, unknownToolMessage } from "./messages.ts";
import { setOwn } from "./coerce.ts";
import { checkParams, readToolParams } from "./params.ts";
import { LineIndex, describePosition, type Position } from "./positions.ts";
import type { ErrorResult, ParseErrorCode, ParseResult } from "./result.ts";
import { CR_SENTINEL, originalOffset, sanitizeActionXml } from "./sanitize.ts";
import { elementValue, groupChildren, isWhitespace, textValue, type RawValue } from "./values.ts";
import { WRAPPER_CLOSE, WRAPPER_OPEN, parseActionXml, type XmlElement } from "./xml-tree.ts";
import { messageOf } from "@weft/types";

/**
 * Reads one LLM output under the `<ACTION>` protocol (seed 004): a plain reply, one validated call,
 * or an error whose message tells the model how to correct itself. Never throws, never runs anything.
 */
export function parseAction(text: string, tools: Manifest | readonly ManifestEntry[]): ParseResult {
  const input = typeof text === "string" ? text : String(text ?? "");
  try {
    return parseLocated(input, Manifest.from(tools), locateAction(input));
  } catch (err) {
    // A defect here must cost one observation, not the agent loop.
    const reason = messageOf(err);
    return {
      kind: "error",
      code: "MALFORMED_XML",
      message: `Your <ACTION> block could not be read (${reason}). Nothing was executed. Write one <ACTION> block with one tool tag and its parameters as child tags.`,
      responseText: "",
      trailingText: "",
    };
  }
}

class BlockContext {
  constructor(
    readonly text: string,
    readonly loc: LocateOutput,
    readonly manifest: Manifest,
  ) {}

  position(offset: number): Position {
    return this.loc.lines.position(offset);
  }

  error(code: ParseErrorCode, message: string, offset?: number, toolId?: string): ErrorResult {
    const p = offset === undefined ? undefined : this.position(offset);
    const notes = this.loc.located.notes;
    return {
      kind: "error",
      code,
      message: notes.length > 0 ? `${message}\n${notes.map((n) => `Note: ${n}`).join("\n")}` : message,
      responseText: this.loc.responseText,
      trailingText: this.loc.trailingText,
      ...(this.loc.located.kind === "block" ? { actionEnd: this.loc.located.closeEnd } : {}),
      ...(toolId !== undefined ? { toolId } : {}),
      ...(p ? { line: p.line, column: p.column } : {}),
    };
  }

  /** Offset of the first `<name` tag (or `name=` attribute) in [from, to). */
  find(name: string, from: number, to: number): number | undefined {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const re = new RegExp(`<${escaped}(?=[\\s/>])|\\s${escaped}\\s*=`, "g");
    re.lastIndex = from;
    const m = re.exec(this.text);
    return m && m.index < to ? m.index + (m[0].startsWith("<") ? 0 : 1) : undefined;
  }

  /** The tool the first tag of a broken block names, for a tailored example. */
  guessEntry(from: number): ManifestEntry | undefined {
    const m = /<([A-Za-z_:][^\s/>]{0,127})/.exec(this.text.slice(from, from + 4096));
    if (!m) return undefined;
    const r = this.manifest.resolve(m[1]!);
    return r.found ? r.entry : undefined;
  }
}

function parseLocated(text: string, manifest: Manifest, loc: LocateOutput): ParseResult {
  const located = loc.located;
  const ctx = new BlockContext(text, loc, manifest);
  switch (located.kind) {
    case "none":
      if (located.strayClose !== undefined) {
        const p = ctx.position(located.strayClose);
        return ctx.error(
          "MALFORMED_XML",
          malformedMessage("found </ACTION> without an opening <ACTION> tag. Open the block with <ACTION> before the tool tag.", p, ctx.guessEntry(0)),
          located.strayClose,
        );
      }
      return { kind: "text", responseText: loc.responseText, notes: located.notes, quoted: loc.quoted };
    case "broken-open":
      return ctx.error(
        "MALFORMED_XML",
        malformedMessage("the <ACTION tag is not closed with '>' before the next tag; write <ACTION> exactly.", ctx.position(located.openStart), ctx.guessEntry(located.openStart + 1)),
        located.openStart,
      );
    case "unclosed": {
      const entry = ctx.guessEntry(located.openStart + 1);
      return ctx.error("TRUNCATED", truncatedMessage(located.what, ctx.position(located.at), entry), located.at, entry?.id);
    }
    case "too-many":
      return ctx.error("MALFORMED_XML", malformedMessage(`your output holds more than ${MAX_ACTION_TAGS} <ACTION> tags. Write exactly one <ACTION> block with one tool tag.`, undefined, undefined));
    case "block":
      return parseBlock(ctx, located.openStart, located.openEnd, located.contentEnd);
    default: {
      const never: never = located;
      return never;
    }
  }
}

function parseBlock(ctx: BlockContext, openStart: number, contentStart: number, contentEnd: number): ParseResult {
  const { text, manifest } = ctx;
  const content = text.slice(contentStart, contentEnd);
  if (isWhitespace(content)) return ctx.error("EMPTY_ACTION", emptyActionMessage(ctx.position(openStart), manifest), openStart);
  const read = readXml(ctx, openStart, contentStart, content);
  if ("kind" in read) return read;
  const notes = [...ctx.loc.located.notes, ...read.repairs];

  const elements = read.root.children.filter((n): n is XmlElement => n.kind === "element");
  const looseText = textValue(
    read.root.children.filter((n) => n.kind !== "element"),
    [],
    "<ACTION>",
  );
  if (elements.length === 0) {
    if (looseText === "") return ctx.error("EMPTY_ACTION", emptyActionMessage(ctx.position(openStart), manifest), openStart);
    return ctx.error("MALFORMED_XML", textInsteadOfToolMessage(looseText, ctx.position(contentStart), manifest), contentStart);
  }
  if (elements.length > 1) {
    const second = ctx.find(elements[1]!.name, contentStart + 1, contentEnd);
    return ctx.error(
      "MULTIPLE_TOOLS",
      multipleToolsMessage(
        elements.map((e) => e.name),
        ctx.position(openStart),
      ),
      second ?? openStart,
    );
  }
  if (looseText !== "") notes.push(`Text inside <ACTION> outside the tool tag was ignored: ${JSON.stringify(looseText.slice(0, 60))}${looseText.length > 60 ? "…" : ""}.`);
  return toolCall(ctx, elements[0]!, contentStart, contentEnd, notes);
}

/** Repairs, validates and parses the block's content; a validator error points into the output. */
function readXml(ctx: BlockContext, openStart: number, contentStart: number, content: string): { root: XmlElement; repairs: string[] } | ErrorResult {
  const sanitized = sanitizeActionXml(content);
  if (!sanitized.ok) {
    const offset = contentStart + sanitized.offset;
    return ctx.error("MALFORMED_XML", malformedMessage(sanitized.message, ctx.position(offset), undefined), offset);
  }
  const { xml, skeleton, crInCdata, repairs } = sanitized.value;
  const parsed = parseActionXml(xml, skeleton, crInCdata ? CR_SENTINEL : undefined);
  if (parsed.ok) return { root: parsed.root, repairs };
  const entry = ctx.guessEntry(contentStart);
  if (parsed.line === undefined || parsed.column === undefined) return ctx.error("MALFORMED_XML", malformedMessage(parsed.message, undefined, entry), undefined, entry?.id);
  const docLines = new LineIndex(WRAPPER_OPEN + skeleton + WRAPPER_CLOSE);
  const toText = (line: number, column: number) => {
    const docOffset = docLines.offset(line, column) - WRAPPER_OPEN.length;
    return docOffset < 0 ? openStart : contentStart + originalOffset(sanitized.value, docOffset);
  };
  const offset = toText(parsed.line, parsed.column);
  // The validator's own "(opened in line L, col C)" refers to the wrapped text: point into the output instead.
  const detail = parsed.message.replace(/line (\d+), col (\d+)/g, (_m, l: string, c: string) => describePosition(ctx.position(toText(Number(l), Number(c)))));
  return ctx.error("MALFORMED_XML", malformedMessage(detail, ctx.position(offset), entry), offset, entry?.id);
}

/** The call a tool element stands for, or why it cannot run. */
function toolCall(ctx: BlockContext, tool: XmlElement, contentStart: number, contentEnd: number, notes: string[]): ParseResult {
  // Positions are only for error messages: looked up on the error paths.
  const toolAt = () => ctx.find(tool.name, contentStart, contentEnd) ?? contentStart;
  const resolved = ctx.manifest.resolve(tool.name);
  if (!resolved.found) {
    const raw: Record<string, RawValue> = {};
    for (const [name, list] of groupChildren(tool)) setOwn(raw, name, elementValue(list[0]!, [], `<${name}>`));
    const at = toolAt();
    return ctx.error("UNKNOWN_TOOL", unknownToolMessage(tool.name, ctx.position(at), ctx.manifest, resolved.suggestions, raw), at);
  }
  const entry = resolved.entry;
  if (resolved.repair) notes.push(resolved.repair);

  const read = readToolParams(tool, entry, notes);
  const checked = checkParams(read.raw, entry, "xml", notes);
  if (read.issues.length + checked.issues.length > 0) {
    const from = toolAt() + 1;
    const offsetOf = (param: string | undefined) => (param === undefined ? undefined : ctx.find(param, from, contentEnd));
    // In the order the model wrote them; problems with no tag (missing parameters) last.
    const issues = [...read.issues, ...checked.issues].map((issue, i) => ({ issue, i, at: offsetOf(issue.param) ?? Number.MAX_SAFE_INTEGER })).sort((a, b) => a.at - b.at || a.i - b.i);
    const positionOf = (param: string) => {
      const o = offsetOf(param);
      return o === undefined ? undefined : ctx.position(o);
    };
    const firstAt = issues[0]!.at === Number.MAX_SAFE_INTEGER ? from - 1 : issues[0]!.at;
    const message = invalidParamsMessage(
      entry,
      issues.map((x) => x.issue),
      checked.raw,
      positionOf,
    );
    return ctx.error("INVALID_PARAMS", message, firstAt, entry.id);
  }
  return {
    kind: "call",
    responseText: ctx.loc.responseText,
    trailingText: ctx.loc.trailingText,
    ...(ctx.loc.located.kind === "block" ? { actionEnd: ctx.loc.located.closeEnd } : {}),
    toolId: entry.id,
    toolKind: entry.kind,
    toolName: entry.name,
    params: checked.params,
    notes,
  };
}
