import { Elysia } from "elysia";
import { McpSettingsSchema } from "../mcp/mcp-config.ts";
import { principalOf } from "../auth/principal.ts";
import { readBody } from "../api/body.ts";
import { answer } from "../api/errors.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { McpSettingsViewSchema, type McpSettings } from "./mcp-settings.ts";

/**
 * The MCP servers (`mcpServers` JSON) with each one's status; env and header values are never returned,
 * and editors get clear secret-looking args and url values masked (settings/mcp-masking.ts).
 */
export function mcpSettingsApi(settings: McpSettings, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/settings/mcp", ({ request }) => answer(McpSettingsViewSchema, settings.view(principalOf(request)?.role ?? "viewer"), 200, { "cache-control": "no-store" }))
    .put("/api/settings/mcp", async ({ request }) => {
      const body = await readBody(request, McpSettingsSchema, maxBodyBytes);
      return answer(McpSettingsViewSchema, await settings.replace(body));
    });
}

/** The MCP servers' routes, as the OpenAPI document describes them. */
export const MCP_SETTINGS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/settings/mcp", "settings", "The configured MCP servers (mcpServers JSON; env and header values null, never sent) with each one's status", { response: McpSettingsViewSchema }),
  route("PUT", "/api/settings/mcp", "settings", "Replace the configured MCP servers", { body: McpSettingsSchema, response: McpSettingsViewSchema }),
];
