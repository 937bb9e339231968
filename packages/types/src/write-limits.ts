/**
 * Length limits on what a client names: ids, names, descriptions of workflows, agent profiles and scenes.
 * Checked when a document is written (create, update, import, duplicate), never when one is read: a record
 * stored before these limits still loads, and is refused only when saved again unchanged in that field.
 * A 4 MB name would otherwise be in every list answer, for everyone.
 */
export const MAX_ID_CHARS = 128;
export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 10_000;
/** A document's id: letters, digits and `_ . : -`, starting with a letter, digit or `_` (ids go in URLs, logs and node types). */
export const DOCUMENT_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;
/** What DOCUMENT_ID_PATTERN allows, in words for error messages. */
export const DOCUMENT_ID_CHARS = "letters, digits, '_', '.', ':' and '-' (not first)";

/** One value over its limit: where, how long it is, the limit, and how to fix it. */
export interface LimitIssue {
  path: (string | number)[];
  message: string;
  code: "too_long" | "invalid_id";
  length: number;
  limit: number;
}

type Field = { path: (string | number)[]; value: unknown; limit: number; what: string };

function lengthIssue({ path, value, limit, what }: Field): LimitIssue | undefined {
  if (typeof value !== "string" || value.length <= limit) return undefined;
  return { path, code: "too_long", length: value.length, limit, message: `${what} is ${value.length} characters, over the limit of ${limit}; shorten it to ${limit} or fewer` };
}

/** Issues of a document id: its length, then its characters. */
export function documentIdIssues(value: unknown, path: (string | number)[]): LimitIssue[] {
  if (typeof value !== "string") return [];
  const long = lengthIssue({ path, value, limit: MAX_ID_CHARS, what: "the id" });
  if (long) return [long];
  if (DOCUMENT_ID_PATTERN.test(value)) return [];
  return [{ path, code: "invalid_id", length: value.length, limit: MAX_ID_CHARS, message: `the id ${JSON.stringify(value)} may only hold ${DOCUMENT_ID_CHARS}; rename it, e.g. "my-workflow"` }];
}

/** Issues of the fields every named document has: `id`, `name`, `description` (when present). */
export function namedDocumentIssues(doc: { id: unknown; name?: unknown; description?: unknown }, prefix: (string | number)[] = []): LimitIssue[] {
  const issues = documentIdIssues(doc.id, [...prefix, "id"]);
  for (const field of [
    { path: [...prefix, "name"], value: doc.name, limit: MAX_NAME_CHARS, what: "the name" },
    { path: [...prefix, "description"], value: doc.description, limit: MAX_DESCRIPTION_CHARS, what: "the description" },
  ]) {
    const issue = lengthIssue(field);
    if (issue) issues.push(issue);
  }
  return issues;
}

/** Issues of ids inside a document (nodes, edges, a scene's agents): each at most MAX_ID_CHARS, any characters. */
export function innerIdIssues(items: readonly { [key: string]: unknown }[], key: string, prefix: (string | number)[]): LimitIssue[] {
  const issues: LimitIssue[] = [];
  items.forEach((item, at) => {
    const issue = lengthIssue({ path: [...prefix, at, key], value: item[key], limit: MAX_ID_CHARS, what: `the ${key}` });
    if (issue) issues.push(issue);
  });
  return issues;
}

/** Issues of short labels in a list (a workflow's tags): each at most MAX_NAME_CHARS. */
export function labelIssues(labels: readonly unknown[], prefix: (string | number)[]): LimitIssue[] {
  const issues: LimitIssue[] = [];
  labels.forEach((value, at) => {
    const issue = lengthIssue({ path: [...prefix, at], value, limit: MAX_NAME_CHARS, what: "the tag" });
    if (issue) issues.push(issue);
  });
  return issues;
}

/** A workflow's issues: its id, name, description, tags, and its nodes', edges' and annotations' ids. */
export function workflowLimitIssues(workflow: {
  id: string;
  name: string;
  description: string;
  tags: readonly string[];
  nodes: readonly { id: string }[];
  edges: readonly { id: string }[];
  annotations: readonly { id: string }[];
}): LimitIssue[] {
  return [
    ...namedDocumentIssues(workflow),
    ...labelIssues(workflow.tags, ["tags"]),
    ...innerIdIssues(workflow.nodes, "id", ["nodes"]),
    ...innerIdIssues(workflow.edges, "id", ["edges"]),
    ...innerIdIssues(workflow.annotations, "id", ["annotations"]),
  ];
}
