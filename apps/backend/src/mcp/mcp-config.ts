import { z } from "zod";

/** Server names become part of node types (`mcp:<server>.<tool>`), so they follow node type rules. */
const SERVER_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Env and header values are secrets: the API never returns them. On save, `null` keeps the value stored
 * under that name, so a form can change a server without knowing its secrets.
 */
const SecretValuesSchema = z.record(z.string().min(1), z.string().nullable());

/** A server's call time limit when its config names none: generous, as a tool may work for minutes (and each progress report restarts it). */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * The keys other MCP clients (Cline, Roo Code, Gemini CLI, Claude Code) write beside the transport's own:
 * `disabled` keeps a server configured but not started; `timeout` is each call's limit in milliseconds (as
 * Gemini CLI writes it), restarted by each progress report; `autoApprove` names tools whose calls need no
 * answer where the permission rules say `ask` (it never opens what a rule denies).
 */
const commonKeys = {
  disabled: z.boolean().optional(),
  timeout: z
    .number()
    .int("timeout is whole milliseconds")
    .min(1000, "timeout is in milliseconds (at least 1000): write 60000 for a minute (Cline and Roo Code write seconds; multiply by 1000)")
    .max(24 * 60 * 60_000, "timeout is at most 86400000 (a day) in milliseconds")
    .optional(),
  autoApprove: z.array(z.string().min(1, "autoApprove lists tool names as the server calls them, e.g. read_file")).optional(),
};

export const StdioServerSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  ...commonKeys,
  command: z.string().min(1, "command must name the program that starts the server, e.g. npx"),
  args: z.array(z.string()).default([]),
  env: SecretValuesSchema.default({}),
  cwd: z.string().min(1).optional(),
});

export const HttpServerSchema = z.strictObject({
  /** `sse`: a legacy server of the HTTP+SSE transport (MCP 2024-11-05); the others name Streamable HTTP. */
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  ...commonKeys,
  url: z.url({ protocol: /^https?$/, error: "url must be an http:// or https:// address of a Streamable HTTP MCP endpoint" }),
  headers: SecretValuesSchema.default({}),
  /** Secret values for `${env:NAME}` references in the url (a key in its query); not sent as headers. Absent when none. */
  env: SecretValuesSchema.optional(),
});

/**
 * `${env:NAME}` in `args`, `cwd` or `url` stands for the server's own (encrypted) env value NAME, as VS Code's
 * mcp.json writes it: a key passed as `--api-key=${env:API_KEY}` or `?key=${env:API_KEY}` is stored
 * encrypted and never shown, while the JSON stays importable by other MCP clients.
 */
const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The env names a text references. */
export function envReferences(text: string): string[] {
  return [...text.matchAll(ENV_REFERENCE)].map((match) => match[1]);
}

/** `text` with each `${env:NAME}` replaced by its value (`encode`d, e.g. for a URL). */
export function withEnvValues(text: string, values: Record<string, string>, encode: (value: string) => string = (value) => value): string {
  return text.replace(ENV_REFERENCE, (whole, name: string) => (name in values ? encode(values[name]) : whole));
}

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
      for (const [name, config] of Object.entries(servers)) {
        const texts: [string, string | undefined][] = "command" in config ? [...config.args.map((arg, i): [string, string] => [`args.${i}`, arg]), ["cwd", config.cwd]] : [["url", config.url]];
        for (const [field, text] of texts)
          for (const reference of envReferences(text ?? ""))
            if (!(reference in (config.env ?? {})))
              ctx.addIssue({
                code: "custom",
                path: [name, ...field.split(".")],
                message: `\${env:${reference}} names no env value of the server "${name}": add "${reference}": "<the secret>" to its env (stored encrypted, never shown again).`,
              });
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

/** What every server has beside its transport: whether it may start, its call time limit, the tools answered `allow` where rules ask. */
export interface ServerOptions {
  name: string;
  disabled: boolean;
  timeoutMs: number;
  autoApprove: string[];
}

/** A server's settings with every secret value known (as used to connect). `sse` is the legacy HTTP+SSE transport. */
export type ResolvedServer = ServerOptions &
  ({ kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string } | { kind: "http" | "sse"; url: string; headers: Record<string, string> });

/** The options every server kind shares, with defaults in place. */
export function serverOptions(name: string, config: McpServerConfig): ServerOptions {
  return { name, disabled: config.disabled ?? false, timeoutMs: config.timeout ?? DEFAULT_TIMEOUT_MS, autoApprove: config.autoApprove ?? [] };
}

export function isStdio(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config;
}
