type Json = { [key: string]: unknown };

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const pretty = (value: unknown) => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

/** Each media type with its schema (/mcp answers JSON or an event stream; /metrics text). */
const contentHtml = (content: Record<string, { schema?: unknown }>) =>
  Object.entries(content)
    .map(([type, { schema }]) => `<p><code>${escape(type)}</code></p>${pretty(schema ?? {})}`)
    .join("");

function operationHtml(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? []).map((p) => `<code>${escape(p.name)}</code> (${p.in}${p.required ? ", required" : ""})`).join(", ");
  const body = op.requestBody ? `<h4>Body</h4>${contentHtml(op.requestBody.content)}` : "";
  const answers = Object.entries(op.responses ?? {})
    .filter(([status]) => status !== "default")
    .map(([status, r]) => `<h4>${escape(status)}</h4>${r.content ? contentHtml(r.content) : `<p>${escape(r.description ?? "")}</p>`}`)
    .join("");
  return `<details><summary><b>${method.toUpperCase()}</b> <code>${escape(path)}</code> — ${escape(op.summary ?? "")}</summary>${params ? `<p>Parameters: ${params}</p>` : ""}${body}${answers}</details>`;
}

/** The OpenAPI document as one static page, grouped by tag; `<details>` folds each operation without any script. */
export function referencePage(document: Json): string {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? "other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, path, op)]);
    }
  }
  const info = document.info as { title: string; version: string; description: string };
  const sections = [...byTag].map(([tag, ops]) => `<section><h2 id="${escape(tag)}">${escape(tag)}</h2>${ops.join("\n")}</section>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)} reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}summary{cursor:pointer;padding:.2rem 0}pre{background:#f4f4f4;padding:.5rem;overflow:auto;font-size:13px}code{font-size:14px}</style>
</head><body><h1>${escape(info.title)} ${escape(info.version)}</h1><p>${escape(info.description)} The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
<nav>${[...byTag.keys()].map((tag) => `<a href="#${escape(tag)}">${escape(tag)}</a>`).join(" · ")}</nav>
${sections}
</body></html>`;
}
