import { Elysia } from "elysia";
import { McpSettingsSchema } from "../mcp/mcp-config.ts";
import type { McpSettings } from "../settings/mcp-settings.ts";
import { readBody } from "./body.ts";
import { jsonResponse } from "./errors.ts";

/** The MCP servers (`mcpServers` JSON) with each one's status; env and header values are never returned. */
export function mcpSettingsApi(settings: McpSettings, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/settings/mcp", () => jsonResponse(settings.view()))
    .put("/api/settings/mcp", async ({ request }) => {
      const body = await readBody(request, McpSettingsSchema, maxBodyBytes);
      return jsonResponse(await settings.replace(body));
    });
}
