import { ToolSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, type Logger, type SecretRedactor } from "@weft/types";
import { z } from "zod";
import { ApiError } from "../api/errors.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { SettingsRepository } from "./settings-repository.ts";
import { isStdio, McpServerConfigSchema, McpSettingsSchema, serverOptions, withEnvValues, type McpServerConfig, type McpSettingsInput, type ResolvedServer } from "../mcp/mcp-config.ts";
import type { Role } from "../accounts/roles.ts";
import { maskedForEditors } from "./mcp-masking.ts";
import type { McpServerStatus } from "../mcp/mcp-connection.ts";
import type { McpManager, McpToolCache } from "../mcp/mcp-manager.ts";

const KEY = "mcp";
const TOOLS_KEY = "mcp.tools";

/** As stored: env and header values sealed by the SecretBox. */
type StoredSettings = McpSettingsInput;

/** What the API returns: the servers with every env and header value `null` (never sent), and each server's status. */
export const McpSettingsViewSchema = z.object({
  mcpServers: z.record(z.string(), McpServerConfigSchema),
  // ../mcp/ owns the status (McpServerStatus): a field added there must be added here, or the generated-client test fails.
  status: z.record(
    z.string(),
    z.object({
      state: z.enum(["idle", "starting", "ready", "restarting", "failed", "stopped", "disabled"]),
      transport: z.string(),
      timeoutMs: z.number().describe("the limit of one call, restarted by each progress report"),
      error: z.string().optional().describe("what went wrong last, with what to do"),
      restarts: z.number(),
      lastCrash: z.string().optional(),
      pid: z.number().optional(),
      tools: z.number(),
      unsupportedTools: z
        .array(z.object({ name: z.string(), reason: z.string() }))
        .optional()
        .describe("tools Weft cannot call, each with why"),
    }),
  ),
  updatedAt: z.number().nullable(),
});
export interface McpSettingsView {
  mcpServers: Record<string, McpServerConfig>;
  status: Record<string, McpServerStatus>;
  updatedAt: number | null;
}

type SecretField = "env" | "headers";

/** The fields of a server whose values are secret: a stdio server's env; an HTTP server's headers and env (for `${env:…}` in its url). */
function secretFieldsOf(config: McpServerConfig): SecretField[] {
  return isStdio(config) ? ["env"] : ["headers", "env"];
}

function secretsOf(config: McpServerConfig, field: SecretField): Record<string, string | null> {
  return field === "env" ? (config.env ?? {}) : isStdio(config) ? {} : config.headers;
}

function withSecrets(config: McpServerConfig, field: SecretField, values: Record<string, string | null>): McpServerConfig {
  // An HTTP server without env values keeps no `env` field: its JSON stays as other MCP clients write it.
  if (field === "env") return config.env === undefined && Object.keys(values).length === 0 ? config : { ...config, env: values };
  return isStdio(config) ? config : { ...config, headers: values };
}

/** The SecretBox context binding a sealed value to its server and name (an HTTP server's env apart from its headers). */
function contextOf(server: string, config: McpServerConfig, field: SecretField, name: string): string {
  return !isStdio(config) && field === "env" ? `mcp:${server}:env:${name}` : `mcp:${server}:${name}`;
}

/**
 * The MCP servers of the installation (Settings → MCP servers): the `mcpServers` JSON other MCP clients
 * use, stored with env and header values encrypted, never returned, and fed to the redactor; applied to
 * the McpManager at load and on each save.
 */
export class McpSettings {
  private readonly savedListeners: (() => Promise<void>)[] = [];

  private constructor(
    private readonly repo: SettingsRepository,
    private readonly box: SecretBox,
    private readonly redactor: SecretRedactor,
    private readonly manager: McpManager,
    private stored: StoredSettings,
    private updatedAt: number | null,
  ) {}

  static async load(repo: SettingsRepository, box: SecretBox, redactor: SecretRedactor, manager: McpManager, log: Logger): Promise<McpSettings> {
    const settings = new McpSettings(repo, box, redactor, manager, { mcpServers: {} }, null);
    await manager.loadCache();
    await settings.reload(log);
    return settings;
  }

  /** Reads the stored servers and applies them: at load, and when another process saved them (queue mode). */
  async reload(log: Logger): Promise<void> {
    const row = await this.repo.get(KEY);
    const parsed = McpSettingsSchema.safeParse(row?.value ?? {});
    if (!parsed.success) log.error("the stored MCP server settings are invalid: no MCP server is started until they are saved again (Settings → MCP servers)", { problem: parsed.error.message });
    this.stored = parsed.success ? parsed.data : { mcpServers: {} };
    this.updatedAt = row?.updatedAt ?? null;
    try {
      await this.manager.configure(this.resolved());
    } catch (error) {
      log.error("the stored MCP secrets cannot be read: MCP servers are off until their env and headers are entered again", { error: messageOf(error) });
      await this.manager.configure([]);
    }
  }

  /** Calls `listener` after each save in this process (not after a `reload`); the save answers once it is done. */
  onSaved(listener: () => Promise<void>): void {
    this.savedListeners.push(listener);
  }

  /** Keeps each server's last listed tools in the settings, so their node types exist before the server starts. */
  static toolCache(repo: SettingsRepository, log: Logger): McpToolCache {
    const Cached = z.record(z.string(), z.array(ToolSchema));
    return {
      async load() {
        const row = await repo.get(TOOLS_KEY);
        const parsed = Cached.safeParse(row?.value ?? {});
        if (!parsed.success) log.warn("the cached MCP tool lists are unreadable; they are listed again when the servers start");
        return parsed.success ? (parsed.data as Record<string, Tool[]>) : {};
      },
      async save(tools) {
        await repo.set(TOOLS_KEY, tools);
      },
    };
  }

  /**
   * Every secret value `null`, for everyone. An owner sees args and url as stored (`${env:…}` references
   * included: the values stay in env); anyone else sees them with what looks like a secret typed in clear
   * masked (`--api-key=…`, a URL's query values and password), in the statuses' texts too.
   */
  view(role: Role = "owner"): McpSettingsView {
    const mcpServers = Object.fromEntries(
      Object.entries(this.stored.mcpServers).map(([name, config]) => [
        name,
        secretFieldsOf(config).reduce((hidden, field) => withSecrets(hidden, field, Object.fromEntries(Object.keys(secretsOf(config, field)).map((k) => [k, null]))), config),
      ]),
    );
    const view = { mcpServers, status: this.manager.statuses(), updatedAt: this.updatedAt };
    return role === "owner" ? view : maskedForEditors(view);
  }

  /**
   * Stores and applies new settings; a `null` env or header value keeps the one stored under that name.
   * The servers are started (a new server's tools become node types at once) before the view is returned.
   */
  async replace(input: McpSettingsInput): Promise<McpSettingsView> {
    const sealed: StoredSettings = { mcpServers: {} };
    for (const [server, config] of Object.entries(input.mcpServers)) {
      const previous = this.stored.mcpServers[server];
      let sealedConfig = config;
      for (const field of secretFieldsOf(config)) {
        // A kept value must have been sealed for the same server kind (an HTTP server's env has its own context).
        const kept = previous && isStdio(previous) === isStdio(config) ? secretsOf(previous, field) : {};
        const values: Record<string, string | null> = {};
        for (const [name, value] of Object.entries(secretsOf(config, field))) {
          const old = kept[name];
          if (value === null && (old === undefined || old === null)) {
            throw new ApiError("VALIDATION_FAILED", `body.mcpServers.${server}.${field}.${name}: null keeps the stored value, but none is stored under this name; give the value as a string.`, {
              issues: [{ path: ["mcpServers", server, field, name], message: "no stored value to keep", code: "custom" }],
            });
          }
          values[name] = value === null ? (old ?? null) : this.box.encrypt(value, contextOf(server, config, field, name));
        }
        sealedConfig = withSecrets(sealedConfig, field, values);
      }
      sealed.mcpServers[server] = sealedConfig;
    }
    this.updatedAt = await this.repo.set(KEY, sealed);
    this.stored = sealed;
    await this.manager.configure(this.resolved());
    await this.manager.startAll();
    await Promise.all(this.savedListeners.map((listener) => listener()));
    return this.view();
  }

  /**
   * The servers with their secrets decrypted (and registered with the redactor, as written and URL-encoded)
   * and `${env:…}` references in args, cwd and url replaced by them, as the manager connects to them.
   */
  private resolved(): ResolvedServer[] {
    const secrets: string[] = [];
    const servers = Object.entries(this.stored.mcpServers).map(([name, config]): ResolvedServer => {
      const open = (field: SecretField) =>
        Object.fromEntries(
          Object.entries(secretsOf(config, field)).flatMap(([key, sealed]) => {
            if (sealed === null) return [];
            const plain = this.box.decrypt(sealed, contextOf(name, config, field, key));
            secrets.push(plain, encodeURIComponent(plain));
            return [[key, plain]];
          }),
        );
      const env = open("env");
      const options = serverOptions(name, config);
      if (isStdio(config)) {
        const cwd = config.cwd === undefined ? undefined : withEnvValues(config.cwd, env);
        return { kind: "stdio", ...options, command: config.command, args: config.args.map((arg) => withEnvValues(arg, env)), env, ...(cwd ? { cwd } : {}) };
      }
      return { kind: config.type === "sse" ? "sse" : "http", ...options, url: withEnvValues(config.url, env, encodeURIComponent), headers: open("headers") };
    });
    this.redactor.set("mcp-servers", "MCP server secret", secrets);
    return servers;
  }
}
