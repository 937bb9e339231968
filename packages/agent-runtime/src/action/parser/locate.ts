import { InlineCodeIndex } from "./inline-code.ts";
import { LineIndex } from "./positions.ts";
import type { QuotedAction } from "./result.ts";

/**
 * Where the `<ACTION>` block of a model output is — only one the model meant as an action: tags
 * inside reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`), Markdown code blocks, inline code
 * or HTML comments are examples, and escaped ones (`&lt;ACTION&gt;`) are not tags at all. Linear.
 */
export type Located =
  | { kind: "none"; notes: string[]; strayClose?: number }
  | { kind: "block"; openStart: number; openEnd: number; contentEnd: number; closeEnd: number; notes: string[] }
  | { kind: "unclosed"; openStart: number; what: "action" | "cdata" | "comment"; at: number; notes: string[] }
  | { kind: "broken-open"; openStart: number; notes: string[] }
  | { kind: "too-many"; notes: string[] };

export interface LocateOutput {
  located: Located;
  /** `<ACTION>` tags skipped as quoted, in text order. */
  quoted: QuotedAction[];
  /** The text before the block (the whole text when there is none), reasoning blocks removed, trimmed. */
  responseText: string;
  /** The text after `</ACTION>`, trimmed. */
  trailingText: string;
  lines: LineIndex;
}

/**
 * Every `<ACTION>` tag may start a scan of the rest of the text (for its close, or the inline code
 * of its line); capping their number keeps hostile input linear. Real outputs have one or two.
 */
export const MAX_ACTION_TAGS = 64;

const TOKEN = /^ {0,3}(`{3,}|~{3,})|<!--|<(\/?)(action|think|thinking|reasoning)(?![^\s>/])/gim;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/gm;
const ACTION_TAG = /<\/?action(?![^\s>/])/i;
/** An output cut while writing the opening tag: `<AC`, `<ACTIO`. */
const CUT_OPEN_TAG = /<(?:ac|act|acti|actio)\s*$/i;
const ACTION_OPEN = /<action(?![^\s>/])/i;
const ACTION_CLOSE_FROM = /<\/action\s*>/gi;
const REASONING_CLOSE = /<\/(think|thinking|reasoning)\s*>/i;
const REASONING_OPEN = /<(think|thinking|reasoning)(?=[\s>/])/i;

type Found = { at: number; closing: boolean } | undefined;

class Scanner {
  readonly notes: string[] = [];
  readonly quoted: QuotedAction[] = [];
  readonly reasoning: Array<[number, number]> = [];
  /** Set when a code block or reasoning block runs to the end of the text. */
  tailQuoted = false;
  /** Set when the text holds more `<ACTION>` tags than any real output would. */
  overflow = false;
  private actionTags = 0;
  /** No `-->` exists at or after this offset (known after one failed search). */
  private noCommentCloseFrom = Number.POSITIVE_INFINITY;
  readonly lines: LineIndex;
  private readonly code: InlineCodeIndex;
  private readonly token = TOKEN;

  constructor(readonly text: string) {
    this.lines = new LineIndex(text);
    this.code = new InlineCodeIndex(text);
  }

  line(offset: number): number {
    return this.lines.position(offset).line;
  }

  /**
   * Reasoning some providers emit without its opening tag: everything before the first `</think>`,
   * unless that `</think>` is quoted in inline code or is a value inside an `<ACTION>` block.
   */
  headlessReasoningEnd(): number {
    const close = REASONING_CLOSE.exec(this.text);
    if (!close) return 0;
    const open = REASONING_OPEN.exec(this.text);
    if ((open && open.index < close.index) || this.code.contains(close.index, 0)) return 0;
    const action = ACTION_OPEN.exec(this.text);
    if (action && action.index < close.index) {
      ACTION_CLOSE_FROM.lastIndex = action.index;
      const actionClose = ACTION_CLOSE_FROM.exec(this.text);
      if (!actionClose || actionClose.index > close.index) return 0;
    }
    const end = close.index + close[0].length;
    this.reasoning.push([0, end]);
    if (ACTION_TAG.test(this.text.slice(0, close.index))) {
      this.quoted.push({ where: "reasoning", line: 1 });
      this.notes.push(`An <ACTION> before </${close[1]}> (line ${this.line(close.index)}) was part of your reasoning and was not executed.`);
    }
    return end;
  }

  /**
   * Where the current stretch of unskipped text began: inline code spans are only looked for after it,
   * so backticks inside a skipped block never pair with ones after it.
   */
  private floor = 0;

  /**
   * The next `<ACTION>` or `</ACTION>` tag from `from` that is not quoted, skipping what is.
   * `fresh`: the text before `from` was consumed (an ACTION block), not merely read past.
   */
  next(from: number, fresh = false): Found {
    const token = this.token;
    token.lastIndex = from;
    if (fresh || from < this.floor) this.floor = from;
    let floor = this.floor;
    for (let m = token.exec(this.text); m; m = token.exec(this.text)) {
      const at = m.index;
      if (m[1]) {
        const end = this.fenceEnd(at, m[1]);
        this.noteQuoted("code-block", at, end, "inside a Markdown code block", "was an example and was not executed", end === this.text.length && this.tailQuoted);
        token.lastIndex = floor = this.floor = end;
      } else if (m[0] === "<!--") {
        const end = at + 4 < this.noCommentCloseFrom ? this.text.indexOf("-->", at + 4) : -1;
        if (end === -1) {
          this.noCommentCloseFrom = Math.min(this.noCommentCloseFrom, at + 4);
          continue; // an unclosed comment in prose is plain text
        }
        this.noteQuoted("comment", at, end, "inside an HTML comment", "was not executed");
        token.lastIndex = floor = this.floor = end + 3;
      } else if (m[3]!.toLowerCase() !== "action") {
        if (m[2]) continue; // a stray reasoning close tag
        const end = this.reasoningEnd(at, m[3]!);
        this.noteQuoted(
          "reasoning",
          at,
          end,
          `inside a <${m[3]}> block`,
          "was reasoning and was not executed; write the <ACTION> block after your reasoning",
          end === this.text.length && this.tailQuoted,
        );
        token.lastIndex = floor = this.floor = end;
      } else if (++this.actionTags > MAX_ACTION_TAGS) {
        this.overflow = true;
        return undefined;
      } else if (this.code.contains(at, floor)) {
        // A whole block in backticks was meant to run; a bare `<ACTION>` in a sentence is only a mention.
        if (m[2] !== "/" && /<\/action\s*>/i.test(this.text.slice(at, at + 4096))) this.quoted.push({ where: "inline-code", line: this.line(at) });
        this.notes.push(`An <ACTION> tag inside inline code (line ${this.line(at)}) was an example and was not executed.`);
      } else {
        return { at, closing: m[2] === "/" };
      }
    }
    return undefined;
  }

  private fenceEnd(at: number, fence: string): number {
    const lineEnd = this.text.indexOf("\n", at);
    if (lineEnd === -1) {
      this.tailQuoted = true;
      return this.text.length;
    }
    const close = FENCE_LINE;
    close.lastIndex = lineEnd + 1;
    for (let m = close.exec(this.text); m; m = close.exec(this.text)) {
      if (m[1]![0] === fence[0] && m[1]!.length >= fence.length) return m.index + m[0].length;
    }
    this.tailQuoted = true;
    return this.text.length; // an unclosed code block runs to the end (CommonMark)
  }

  private reasoningEnd(at: number, name: string): number {
    const gt = this.text.indexOf(">", at);
    if (gt !== -1 && this.text[gt - 1] === "/") return gt + 1;
    const close = new RegExp(`</${name}\\s*>`, "gi");
    close.lastIndex = at;
    const m = close.exec(this.text);
    const end = m ? m.index + m[0].length : this.text.length;
    if (!m) this.tailQuoted = true;
    this.reasoning.push([at, end]);
    return end;
  }

  private noteQuoted(kind: QuotedAction["where"], start: number, end: number, where: string, outcome: string, unclosed = false): void {
    if (!ACTION_TAG.test(this.text.slice(start, end))) return;
    this.quoted.push({ where: kind, line: this.line(start) });
    const opened = unclosed ? `opened at line ${this.line(start)} and never closed` : `line ${this.line(start)}`;
    this.notes.push(`An <ACTION> tag ${where} (${opened}) ${outcome}.`);
  }

  /** Text of [start, end) without reasoning blocks, trimmed. */
  visibleText(start: number, end: number): string {
    let out = "";
    let pos = start;
    for (const [s, e] of this.reasoning) {
      if (e <= pos || s >= end) continue;
      out += this.text.slice(pos, Math.max(pos, s));
      pos = Math.max(pos, e);
    }
    if (pos < end) out += this.text.slice(pos, end);
    return out.trim();
  }
}

type BlockScan =
  | { kind: "block"; openEnd: number; contentEnd: number; closeEnd: number }
  | { kind: "unclosed"; what: "action" | "cdata" | "comment"; at: number }
  | { kind: "nested"; at: number }
  | { kind: "broken-open" };

/** From an `<ACTION` tag: the end of the open tag and the matching close, skipping CDATA and comments. */
function scanBlock(text: string, openStart: number, notes: string[]): BlockScan {
  const gt = text.indexOf(">", openStart);
  const lt = text.indexOf("<", openStart + 1);
  if (gt === -1) return { kind: "unclosed", what: "action", at: openStart };
  if (lt !== -1 && lt < gt) return { kind: "broken-open" };
  const openTag = text.slice(openStart, gt + 1);
  if (!openTag.startsWith("<ACTION")) notes.push(`The tag was written ${openTag.slice(0, 7)}>; it is <ACTION> (accepted).`);
  if (/^<action\s+[^\s/>]/i.test(openTag)) notes.push("Attributes on <ACTION> are ignored.");
  if (text[gt - 1] === "/") return { kind: "block", openEnd: gt + 1, contentEnd: gt + 1, closeEnd: gt + 1 };
  // The close is first looked for as spelled in the open tag, so a parameter named `action` inside an
  // `<ACTION>` block is not mistaken for it; another spelling is only a fallback.
  const exact = findClose(text, gt + 1, openTag.slice(1, 7), true);
  if (exact.kind !== "unclosed" || exact.what !== "action") return withCaseNote(exact, text, notes);
  return withCaseNote(findClose(text, gt + 1, "action", false), text, notes);
}

function withCaseNote(scan: BlockScan, text: string, notes: string[]): BlockScan {
  if (scan.kind === "block" && !text.startsWith("</ACTION", scan.contentEnd)) {
    notes.push(`The closing tag was written ${text.slice(scan.contentEnd, scan.contentEnd + 8)}>; it is </ACTION> (accepted).`);
  }
  return scan;
}

/** The close and open-or-close patterns of one spelling of ACTION (sticky), built once per spelling. */
const tagPatterns = new Map<string, { close: RegExp; any: RegExp }>();

function patternsFor(name: string, caseSensitive: boolean): { close: RegExp; any: RegExp } {
  const key = caseSensitive ? name : "";
  let p = tagPatterns.get(key);
  if (!p) {
    const flags = caseSensitive ? "y" : "iy";
    p = { close: new RegExp(`</${name}\\s*>`, flags), any: new RegExp(`<(/?)${name}(?![^\\s>/])`, flags) };
    // Spellings are 64 at most (a-z or A-Z in six letters); the map stays small.
    tagPatterns.set(key, p);
  }
  return p;
}

function findClose(text: string, contentStart: number, name: string, caseSensitive: boolean): BlockScan {
  const { close, any } = patternsFor(name, caseSensitive);
  for (let j = text.indexOf("<", contentStart); j !== -1; j = text.indexOf("<", j + 1)) {
    if (text.startsWith("<![CDATA[", j)) {
      const end = text.indexOf("]]>", j + 9);
      if (end === -1) return { kind: "unclosed", what: "cdata", at: j };
      j = end + 2;
    } else if (text.startsWith("<!--", j)) {
      const end = text.indexOf("-->", j + 4);
      if (end === -1) return { kind: "unclosed", what: "comment", at: j };
      j = end + 2;
    } else {
      any.lastIndex = j;
      const m = any.exec(text);
      if (!m) continue;
      if (!m[1]) return { kind: "nested", at: j };
      close.lastIndex = j;
      const c = close.exec(text);
      if (!c) return { kind: "unclosed", what: "action", at: j };
      return { kind: "block", openEnd: contentStart, contentEnd: j, closeEnd: j + c[0].length };
    }
  }
  return { kind: "unclosed", what: "action", at: contentStart };
}

/** Finds the first `<ACTION>` block meant as an action; notes what was skipped and why. */
export function locateAction(text: string): LocateOutput {
  const s = new Scanner(text);
  const start = s.headlessReasoningEnd();
  const finish = (located: Located, before: number, after: number): LocateOutput => ({
    located,
    quoted: s.quoted,
    responseText: s.visibleText(start, before),
    trailingText: after < text.length ? s.visibleText(after, text.length) : "",
    lines: s.lines,
  });
  let strayClose: number | undefined;
  for (let found = s.next(start, true); found;) {
    if (found.closing) {
      strayClose ??= found.at;
      found = s.next(found.at + 2);
      continue;
    }
    const openStart = found.at;
    const scan = scanBlock(text, openStart, s.notes);
    switch (scan.kind) {
      case "nested":
        s.notes.push(`An <ACTION> tag at line ${s.line(openStart)} followed by another <ACTION> tag was read as a mention; the later one was used.`);
        found = s.next(scan.at);
        continue;
      case "broken-open":
        return finish({ kind: "broken-open", openStart, notes: s.notes }, openStart, text.length);
      case "unclosed": {
        const gt = text.indexOf(">", openStart);
        // `<ACTION>` followed by prose and never closed is a mention in a sentence, not a cut-off call.
        if (scan.what === "action" && gt !== -1 && !/\s*</y.test(text.slice(gt + 1, gt + 4097))) {
          s.notes.push(`An unclosed <ACTION> tag followed by plain text (line ${s.line(openStart)}) was read as a mention, not as an action.`);
          found = s.next(openStart + 1);
          continue;
        }
        const at = scan.what === "action" ? openStart : scan.at;
        return finish({ kind: "unclosed", openStart, what: scan.what, at, notes: s.notes }, openStart, text.length);
      }
      case "block": {
        const second = s.next(scan.closeEnd, true);
        if (second && !second.closing) {
          s.notes.push(`Only the first <ACTION> block is executed per turn; a second block at line ${s.line(second.at)} was ignored. Call one tool, wait for its Observation, then call the next.`);
        }
        const { openEnd, contentEnd, closeEnd } = scan;
        return finish({ kind: "block", openStart, openEnd, contentEnd, closeEnd, notes: s.notes }, openStart, closeEnd);
      }
      default: {
        const never: never = scan;
        return never;
      }
    }
  }
  if (s.overflow) return finish({ kind: "too-many", notes: s.notes }, text.length, text.length);
  const tail = Math.max(0, text.length - 16);
  const cut = s.tailQuoted ? null : CUT_OPEN_TAG.exec(text.slice(tail));
  if (cut) {
    const openStart = tail + cut.index;
    return finish({ kind: "unclosed", openStart, what: "action", at: openStart, notes: s.notes }, openStart, text.length);
  }
  return finish(strayClose === undefined ? { kind: "none", notes: s.notes } : { kind: "none", notes: s.notes, strayClose }, text.length, text.length);
}
