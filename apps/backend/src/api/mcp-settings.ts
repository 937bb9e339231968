import { Elysia } from "elysia";
import { McpSettingsSchema } from "../mcp/mcp-config.ts";
import type { McpSettings } from "../settings/mcp-settings.ts";
import { principalOf } from "../auth/principal.ts";
import { readBody } from "./body.ts";
import { jsonResponse } from "./errors.ts";

/**
 * The MCP servers (`mcpServers` JSON) with each one's status; env and header values are never returned,
 * and editors get clear secret-looking args and url values masked (settings/mcp-masking.ts).
 */
export function mcpSettingsApi(settings: McpSettings, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/settings/mcp", ({ request }) => jsonResponse(settings.view(principalOf(request)?.role ?? "viewer"), 200, { "cache-control": "no-store" }))
    .put("/api/settings/mcp", async ({ request }) => {
      const body = await readBody(request, McpSettingsSchema, maxBodyBytes);
      return jsonResponse(await settings.replace(body));
    });
}
