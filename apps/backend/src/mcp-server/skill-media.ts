import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { isMediaValue, type InterfacePort, type WorkflowInterface } from "@weft/types";

/** A media output larger than this (decoded) is not inlined: the result says where to fetch it. */
export const MAX_MEDIA_BYTES = 8 * 1024 * 1024;

/** What `structuredContent` holds for a media output: its description, not its bytes (those are in `content`, once). */
export const MEDIA_REFERENCE_SCHEMA = {
  type: "object",
  description: "An image or file output: its bytes are in the result's content (image or embedded resource).",
  properties: { mimeType: { type: "string" }, name: { type: "string" }, bytes: { type: "integer" } },
  required: ["mimeType", "bytes"],
};

type MediaPort = InterfacePort & { type: "image" | "file" };

export function mediaPorts(skillInterface: WorkflowInterface): MediaPort[] {
  return skillInterface.outputs.filter((p): p is MediaPort => p.type === "image" || p.type === "file");
}

/** Bytes of standard base64 text, without decoding it. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/**
 * A run's outputs as a tool result's content: each image output as `image` content, each file
 * as an embedded `resource` (base64 `blob`) or, for an `audio/*` one, `audio` content, the other outputs as one JSON text; `structured` is
 * the outputs with each media value described (`MEDIA_REFERENCE_SCHEMA`) instead of repeated.
 */
export function outputContent(runId: string, outputs: Record<string, unknown>, ports: readonly MediaPort[]): { content: ContentBlock[]; structured: Record<string, unknown> } {
  const content: ContentBlock[] = [];
  const structured: Record<string, unknown> = { ...outputs };
  for (const port of ports) {
    const value = outputs[port.name];
    if (!isMediaValue(value, port.type)) continue;
    const bytes = decodedBytes(value.data);
    structured[port.name] = { mimeType: value.mimeType, ...(value.name !== undefined ? { name: value.name } : {}), bytes };
    if (bytes > MAX_MEDIA_BYTES) {
      content.push({
        type: "text",
        text: `Output "${port.name}" (${value.mimeType}, ${bytes} bytes) is over the ${MAX_MEDIA_BYTES}-byte limit for MCP content; fetch it with GET /api/runs/${runId}/value?side=outputs&key=${encodeURIComponent(port.name)}.`,
      });
    } else if (port.type === "image") {
      content.push({ type: "image", data: value.data, mimeType: value.mimeType });
    } else if (value.mimeType.startsWith("audio/")) {
      // MCP has a content type of its own for sound; a client plays it rather than saving a file.
      content.push({ type: "audio", data: value.data, mimeType: value.mimeType });
    } else {
      const uri = `weft://runs/${encodeURIComponent(runId)}/outputs/${encodeURIComponent(port.name)}`;
      content.push({ type: "resource", resource: { uri, mimeType: value.mimeType, blob: value.data } });
    }
  }
  const media = new Set(ports.map((p) => p.name));
  const rest = Object.fromEntries(Object.entries(outputs).filter(([key]) => !media.has(key)));
  if (Object.keys(rest).length > 0 || content.length === 0) content.unshift({ type: "text", text: JSON.stringify(rest) });
  return { content, structured };
}
