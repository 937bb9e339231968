import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "@weft/types";

/** The text parts of an MCP answer, joined; other parts (images, resources) stay in `content`. */
function textOf(result: CallToolResult): string {
  return result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** An MCP tool's answer as a tool host result: an `isError` answer is a failure whose message is the server's text. */
export function toolResultOf(result: CallToolResult): ToolResult {
  const text = textOf(result);
  if (result.isError) return { ok: false, error: { code: "E_MCP_TOOL_ERROR", message: text || "The MCP tool reported an error without a message." } };
  return { ok: true, content: result.content, text, ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}) };
}
