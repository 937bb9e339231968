import { z } from "zod";

/** Server names become part of node types (`mcp:<server>.<tool>`), so they follow node type rules. */
const SERVER_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Env and header values are secrets: the API never returns them. On save, `null` keeps the value stored
 * under that name, so a form can change a server without knowing its secrets.
 */
const SecretValuesSchema = z.record(z.string().min(1), z.string().nullable());

export const StdioServerSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must name the program that starts the server, e.g. npx"),
  args: z.array(z.string()).default([]),
  env: SecretValuesSchema.default({}),
  cwd: z.string().min(1).optional(),
});

export const HttpServerSchema = z.strictObject({
  type: z.enum(["http", "streamable-http", "streamableHttp"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "url must be an http:// or https:// address of a Streamable HTTP MCP endpoint" }),
  headers: SecretValuesSchema.default({}),
});

/** One server as other MCP clients write it: `command`/`args`/`env` (stdio) or `url`/`headers` (Streamable HTTP). */
export const McpServerConfigSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error: "each server needs either `command` (stdio: with optional args, env, cwd) or `url` (Streamable HTTP: with optional headers)",
});

/** The `mcpServers` JSON users already have from Claude Desktop, Cursor and other MCP clients. */
export const McpSettingsSchema = z.strictObject({
  mcpServers: z
    .record(z.string(), McpServerConfigSchema)
    .default({})
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        if (SERVER_NAME.test(name)) continue;
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `"${name}" cannot name an MCP server: use lower case letters, digits and -, starting with a letter (it becomes part of the node types mcp:<server>.<tool>)`,
        });
      }
    }),
});

export type StdioServerConfig = z.output<typeof StdioServerSchema>;
export type HttpServerConfig = z.output<typeof HttpServerSchema>;
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpSettingsInput = z.output<typeof McpSettingsSchema>;

/** A server's settings with every secret value known (as used to connect). */
export type ResolvedServer =
  { kind: "stdio"; name: string; command: string; args: string[]; env: Record<string, string>; cwd?: string } | { kind: "http"; name: string; url: string; headers: Record<string, string> };

export function isStdio(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config;
}
