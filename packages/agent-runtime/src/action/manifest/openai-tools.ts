import type { FunctionTool } from "@weft/types";
import type { ManifestEntry } from "./entry.ts";
import { Manifest } from "./manifest.ts";

/** The manifest as OpenAI `tools` for the native protocol: name = LLM-safe name, parameters = JSON Schema. */
export function manifestToOpenAiTools(tools: Manifest | readonly ManifestEntry[]): FunctionTool[] {
  return Manifest.from(tools).entries.map((e) => ({
    type: "function",
    function: { name: e.name, description: e.description, parameters: e.inputSchema },
  }));
}
