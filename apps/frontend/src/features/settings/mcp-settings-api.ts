import { z } from "zod";
import { ApiClient } from "../../shared/api/client.ts";

export const MCP_SERVER_STATES = ["idle", "starting", "ready", "restarting", "failed", "stopped", "disabled"] as const;

export const McpServerStatusSchema = z.object({
  state: z.enum(MCP_SERVER_STATES),
  transport: z.enum(["stdio", "http", "sse"]),
  /** Each call's limit in ms, restarted by each progress report. */
  timeoutMs: z.number(),
  error: z.string().optional(),
  restarts: z.number(),
  lastCrash: z.string().optional(),
  pid: z.number().optional(),
  tools: z.number(),
  /** Listed tools Weft cannot call (not offered as nodes), with why. */
  unsupportedTools: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

/** The server checks each server's shape; here it is kept as the JSON the user edits. */
export const McpSettingsViewSchema = z.object({
  mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())),
  status: z.record(z.string(), McpServerStatusSchema),
  updatedAt: z.number().nullable(),
});
export type McpSettingsView = z.infer<typeof McpSettingsViewSchema>;

/** Settings → MCP servers (`GET/PUT /api/settings/mcp`): env and header values come back as null, which keeps them on save. */
export class McpSettingsApi extends ApiClient {
  get() {
    return this.request("GET", "/api/settings/mcp", McpSettingsViewSchema);
  }

  save(settings: { mcpServers: Record<string, unknown> }) {
    return this.request("PUT", "/api/settings/mcp", McpSettingsViewSchema, settings);
  }
}
