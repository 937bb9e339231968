import { isMap, isSeq, parseDocument, type Document } from "yaml";
import { z } from "zod";
import type { FrontmatterUpdate } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";

/** The document-as-state keys of seed 000 §6.6, typed; other keys are free. */
const StateFrontmatterSchema = z
  .object({
    stepsCompleted: z.array(z.string()).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    decisionLog: z.array(z.record(z.string(), z.unknown())).optional(),
    artifacts: z.array(z.string()).optional(),
    currentNodeId: z.string().optional(),
    updatedAt: z.string().optional(),
  })
  .passthrough();

export interface Frontmatter {
  doc: Document;
  data: Record<string, unknown>;
  /** Everything after the closing `---` line. */
  body: string;
  eol: "\n" | "\r\n";
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

function invalid(path: string, reason: string, details: Record<string, unknown> = {}): ToolFailure {
  return new ToolFailure("E_INVALID_FRONTMATTER", `The frontmatter of ${path} ${reason}.`, { path, ...details });
}

/** Whether a text starts a YAML frontmatter block. */
export function hasFrontmatter(text: string): boolean {
  return OPEN.test(text);
}

/** Splits and checks the YAML frontmatter of a Markdown text; null when it has none. */
export function parseFrontmatter(text: string, path: string): Frontmatter | null {
  const open = OPEN.exec(text);
  if (!open) return null;
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) throw invalid(path, "is not closed: add a line `---` after the YAML block");
  const doc = parseDocument(rest.slice(0, close.index), { prettyErrors: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0].line;
    throw invalid(path, `is not valid YAML${line ? ` (line ${line + 1} of the file)` : ""}: ${first.message.split("\n")[0]}`, { yamlErrors: doc.errors.map((e) => e.message.split("\n")[0]) });
  }
  const value: unknown = doc.toJS() ?? {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(path, "must be a YAML mapping of keys to values");
  const checked = StateFrontmatterSchema.safeParse(value);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw invalid(path, `has wrongly typed keys: ${issues.join("; ")}`, { issues });
  }
  return { doc, data: checked.data, body: rest.slice(close.index + close[0].length), eol: open[0].endsWith("\r\n") ? "\r\n" : "\n" };
}

function appendTo(doc: Document, key: string, items: unknown[], path: string): void {
  const node = doc.get(key, true);
  if (node === undefined || node === null) {
    doc.set(key, doc.createNode(items));
    return;
  }
  if (!isSeq(node)) throw invalid(path, `has \`${key}\` that is not a list, so nothing can be appended to it`);
  for (const item of items) node.add(doc.createNode(item));
}

/**
 * Applies a seed 000 §6.6 `updateFrontmatter` operation, keeping the body, comments and key
 * order of the YAML as they are, and checks the result.
 */
export function updateFrontmatter(text: string, update: FrontmatterUpdate, path: string): string {
  const fm = parseFrontmatter(text, path);
  if (!fm) throw invalid(path, "is missing: the document must start with a `---` line, the YAML keys, and another `---` line. Create it with fs.write first");
  const { doc } = fm;
  if (update.stepsCompleted) appendTo(doc, "stepsCompleted", update.stepsCompleted.append, path);
  if (update.decisionLog) appendTo(doc, "decisionLog", update.decisionLog.append, path);
  if (update.artifacts) appendTo(doc, "artifacts", update.artifacts.append, path);
  if (update.variables) {
    const node = doc.get("variables", true);
    if (node !== undefined && node !== null && !isMap(node)) throw invalid(path, "has `variables` that is not a mapping, so nothing can be set in it");
    if (node === undefined || node === null) doc.set("variables", doc.createNode(update.variables.set));
    else for (const [key, value] of Object.entries(update.variables.set)) node.set(key, doc.createNode(value));
  }
  if (update.currentNodeId) doc.set("currentNodeId", update.currentNodeId.set);
  if (update.updatedAt) doc.set("updatedAt", update.updatedAt.set);
  const yaml = doc.toString({ lineWidth: 0 });
  const next = `---${fm.eol}${fm.eol === "\n" ? yaml : yaml.replace(/\n/g, "\r\n")}---${fm.eol}${fm.body}`;
  // The result goes through the same checks as any written document.
  parseFrontmatter(next, path);
  return next;
}
