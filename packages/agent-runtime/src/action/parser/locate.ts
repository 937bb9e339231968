import { InlineCodeIndex } from "./inline-code.ts";
import { LineIndex } from "./positions.ts";

/**
 * Where the `<ACTION>` block of a model output is — only one the model meant as an action: tags
 * inside reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`), Markdown code blocks, inline code
 * or HTML comments are examples, and escaped ones (`&lt;ACTION&gt;`) are not tags at all. Linear.
 */
export type Located =
  | { kind: "none"; notes: string[]; strayClose?: number }
  | { kind: "block"; openStart: number; openEnd: number; contentEnd: number; closeEnd: number; notes: string[] }
  | { kind: "unclosed"; openStart: number; what: "action" | "cdata" | "comment"; at: number; notes: string[] }
  | { kind: "broken-open"; openStart: number; notes: string[] };

export interface LocateOutput {
  located: Located;
  /** The text before the block (the whole text when there is none), reasoning blocks removed, trimmed. */
  responseText: string;
  /** The text after `</ACTION>`, trimmed. */
  trailingText: string;
  lines: LineIndex;
}

const TOKEN = /^ {0,3}(`{3,}|~{3,})|<!--|<(\/?)(action|think|thinking|reasoning)(?=[\s>/])/gim;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/gm;
const ACTION_TAG = /<\/?action(?=[\s>/])/i;
const REASONING_CLOSE = /<\/(think|thinking|reasoning)\s*>/i;
const REASONING_OPEN = /<(think|thinking|reasoning)(?=[\s>/])/i;

type Found = { at: number; closing: boolean } | undefined;

class Scanner {
  readonly notes: string[] = [];
  readonly reasoning: Array<[number, number]> = [];
  readonly lines: LineIndex;
  private readonly code: InlineCodeIndex;
  private readonly token = new RegExp(TOKEN.source, TOKEN.flags);

  constructor(readonly text: string) {
    this.lines = new LineIndex(text);
    this.code = new InlineCodeIndex(text);
  }

  line(offset: number): number {
    return this.lines.position(offset).line;
  }

  /** Reasoning some providers emit without its opening tag: everything before the first `</think>`. */
  headlessReasoningEnd(): number {
    const close = REASONING_CLOSE.exec(this.text);
    if (!close) return 0;
    const open = REASONING_OPEN.exec(this.text);
    if (open && open.index < close.index) return 0;
    const end = close.index + close[0].length;
    this.reasoning.push([0, end]);
    if (ACTION_TAG.test(this.text.slice(0, close.index))) this.notes.push(`An <ACTION> before </${close[1]}> (line ${this.line(close.index)}) was part of your reasoning and was not executed.`);
    return end;
  }

  /** The next `<ACTION>` or `</ACTION>` tag from `from` that is not quoted, skipping what is. */
  next(from: number): Found {
    const token = this.token;
    token.lastIndex = from;
    let floor = from;
    for (let m = token.exec(this.text); m; m = token.exec(this.text)) {
      const at = m.index;
      if (m[1]) {
        const end = this.fenceEnd(at, m[1]);
        this.noteQuoted(at, end, "inside a Markdown code block", "was an example and was not executed");
        token.lastIndex = floor = end;
      } else if (m[0] === "<!--") {
        const end = this.text.indexOf("-->", at + 4);
        if (end === -1) continue; // an unclosed comment in prose is plain text
        this.noteQuoted(at, end, "inside an HTML comment", "was not executed");
        token.lastIndex = floor = end + 3;
      } else if (m[3]!.toLowerCase() !== "action") {
        if (m[2]) continue; // a stray reasoning close tag
        const end = this.reasoningEnd(at, m[3]!);
        this.noteQuoted(at, end, `inside a <${m[3]}> block`, "was reasoning and was not executed; write the <ACTION> block after your reasoning");
        token.lastIndex = floor = end;
      } else if (this.code.contains(at, floor)) {
        this.notes.push(`An <ACTION> tag inside inline code (line ${this.line(at)}) was an example and was not executed.`);
      } else {
        return { at, closing: m[2] === "/" };
      }
    }
    return undefined;
  }

  private fenceEnd(at: number, fence: string): number {
    const lineEnd = this.text.indexOf("\n", at);
    if (lineEnd === -1) return this.text.length;
    const close = new RegExp(FENCE_LINE.source, FENCE_LINE.flags);
    close.lastIndex = lineEnd + 1;
    for (let m = close.exec(this.text); m; m = close.exec(this.text)) {
      if (m[1]![0] === fence[0] && m[1]!.length >= fence.length) return m.index + m[0].length;
    }
    return this.text.length; // an unclosed code block runs to the end (CommonMark)
  }

  private reasoningEnd(at: number, name: string): number {
    const gt = this.text.indexOf(">", at);
    if (gt !== -1 && this.text[gt - 1] === "/") return gt + 1;
    const close = new RegExp(`</${name}\\s*>`, "gi");
    close.lastIndex = at;
    const m = close.exec(this.text);
    const end = m ? m.index + m[0].length : this.text.length;
    this.reasoning.push([at, end]);
    return end;
  }

  private noteQuoted(start: number, end: number, where: string, outcome: string): void {
    if (ACTION_TAG.test(this.text.slice(start, end))) this.notes.push(`An <ACTION> tag ${where} (line ${this.line(start)}) ${outcome}.`);
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

function findClose(text: string, contentStart: number, name: string, caseSensitive: boolean): BlockScan {
  const flags = caseSensitive ? "y" : "iy";
  const close = new RegExp(`</${name}\\s*>`, flags);
  const any = new RegExp(`<(/?)${name}(?=[\\s>/])`, flags);
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
    responseText: s.visibleText(start, before),
    trailingText: after < text.length ? s.visibleText(after, text.length) : "",
    lines: s.lines,
  });
  let strayClose: number | undefined;
  for (let found = s.next(start); found; ) {
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
        const rest = text.slice(text.indexOf(">", openStart) + 1).trimStart();
        // `<ACTION>` followed by prose and never closed is a mention in a sentence, not a cut-off call.
        if (scan.what === "action" && text.indexOf(">", openStart) !== -1 && !rest.startsWith("<")) {
          s.notes.push(`An unclosed <ACTION> tag followed by plain text (line ${s.line(openStart)}) was read as a mention, not as an action.`);
          found = s.next(openStart + 1);
          continue;
        }
        return finish({ kind: "unclosed", openStart, what: scan.what, at: scan.at, notes: s.notes }, openStart, text.length);
      }
      case "block": {
        const second = s.next(scan.closeEnd);
        if (second && !second.closing) {
          s.notes.push(`Only the first <ACTION> block is executed per turn; a second block at line ${s.line(second.at)} was ignored. Call one tool, wait for its Observation, then call the next.`);
        }
        return finish({ kind: "block", openStart, ...scan, notes: s.notes }, openStart, scan.closeEnd);
      }
      default: {
        const never: never = scan;
        return never;
      }
    }
  }
  return finish(strayClose === undefined ? { kind: "none", notes: s.notes } : { kind: "none", notes: s.notes, strayClose }, text.length, text.length);
}
