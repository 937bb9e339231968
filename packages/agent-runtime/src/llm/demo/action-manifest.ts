/**
 * Reads the tool list of the `<ACTION>` protocol back out of a prompt (seed 004 §4.2), so the
 * demo LLM can answer with an action for a tool it was actually offered.
 */

export const MANIFEST_HEADER = "You have access to the following tools and skills:";
const TOOL_LINE = /^\s*\*\s+`<([A-Za-z][A-Za-z0-9_]*)>`:\s*(.*)$/;
const PARAM_LINE = /^\s+\*\s+`<([A-Za-z_][A-Za-z0-9_]*)>`\s+\(([a-z]+)(?:,\s*(required|optional))?\)/;

export interface ManifestParam {
  name: string;
  type: string;
  required: boolean;
  description: string;
  /** The options a parameter line lists as `One of: "a", "b".` */
  enum?: string[];
}

const OPTIONS = /One of: ((?:"[^"]*"(?:, )?)+)\./;

export interface ManifestTool {
  name: string;
  description: string;
  params: ManifestParam[];
}

/** The tools listed after the last manifest header in `text`, or null when there is no header. */
export function parseActionManifest(text: string): ManifestTool[] | null {
  const at = text.lastIndexOf(MANIFEST_HEADER);
  if (at < 0) return null;
  const tools: ManifestTool[] = [];
  let current: ManifestTool | undefined;
  for (const line of text.slice(at + MANIFEST_HEADER.length).split("\n")) {
    const param = PARAM_LINE.exec(line);
    if (param && current) {
      const description = line.slice(param[0].length).replace(/^:\s*/, "").trim();
      const options = OPTIONS.exec(description)?.[1]
        ?.match(/"[^"]*"/g)
        ?.map((o) => o.slice(1, -1));
      current.params.push({ name: param[1], type: param[2], required: param[3] !== "optional", description, ...(options ? { enum: options } : {}) });
      continue;
    }
    const tool = TOOL_LINE.exec(line);
    if (tool) {
      current = { name: tool[1], description: tool[2].trim(), params: [] };
      tools.push(current);
    }
  }
  return tools;
}
