import { z } from "zod";

/**
 * The sandboxed file and shell tools (seed 000 §6, seed 002): error codes, result shapes, limits,
 * the shell allowlist and the permission rules. Implemented in agent-runtime/toolhost.
 */

/** Seed 000 §6.1 error codes, followed by the ones the tool host adds for cases §6.1 does not name. */
export const TOOL_ERROR_CODES = [
  "ENOENT",
  "E_SANDBOX_VIOLATION",
  "E_READ_LIMIT",
  "E_WRITE_LIMIT",
  "E_INVALID_FRONTMATTER",
  "E_SCHEMA_VALIDATION",
  "E_INVALID_TRANSITION",
  "E_PRECONDITION_FAILED",
  "E_INTERNAL",
  "EEXIST",
  "EISDIR",
  "ENOTDIR",
  "EACCES",
  "E_BINARY_FILE",
  "E_PATCH_FAILED",
  "E_PERMISSION_DENIED",
  "E_COMMAND_NOT_ALLOWED",
  "E_TIMEOUT",
  "E_ABORTED",
  "E_UNKNOWN_TOOL",
  /** shell.exec cannot isolate commands here (bubblewrap missing or user namespaces disabled). */
  "E_SANDBOX_UNAVAILABLE",
  /** http.request: the address is loopback, private, link-local or otherwise not public, and no rule allows it. */
  "E_PRIVATE_ADDRESS",
  /** http.request: DNS, connection, TLS or protocol failure, or the time limit. */
  "E_NETWORK",
  "E_TOO_MANY_REDIRECTS",
  "E_UNKNOWN_CREDENTIAL",
  /** http.request: the credential was stored before credentials were bound to hosts; an owner must bind it first. */
  "E_CREDENTIAL_NOT_BOUND",
  /** http.request: the URL is not one of the hosts the credential is bound to; nothing was sent. */
  "E_CREDENTIAL_HOST_NOT_ALLOWED",
  /** http.request: the user the call runs for (or nobody known) has a role the credential's owner did not allow. */
  "E_CREDENTIAL_ROLE_NOT_ALLOWED",
  /** mcp:<server>.<tool>: the MCP server could not be started or reached (see Settings → MCP servers). */
  "E_MCP_UNAVAILABLE",
  /** mcp:<server>.<tool>: the MCP server ran the tool and reported an error. */
  "E_MCP_TOOL_ERROR",
  /** a2a.call: the remote agent's card or answer is not A2A, or it answered with a JSON-RPC error (its message says which). */
  "E_A2A_ERROR",
] as const;
export const ToolErrorCodeSchema = z.enum(TOOL_ERROR_CODES);
export type ToolErrorCode = z.infer<typeof ToolErrorCodeSchema>;

export const ToolErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

export type ToolResult = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolError };

export const ToolFailureResultSchema = z.object({ ok: z.literal(false), error: ToolErrorSchema });
export type ToolFailureResult = z.infer<typeof ToolFailureResultSchema>;

export const TOOL_NAMES = ["fs.read", "fs.search", "fs.list", "fs.write", "fs.apply_patch", "shell.exec", "http.request", "a2a.call"] as const;
export const ToolNameSchema = z.enum(TOOL_NAMES);
export type ToolName = z.infer<typeof ToolNameSchema>;

export const MOUNT_NAMES = ["project", "pkg", "state"] as const;
export type MountName = (typeof MOUNT_NAMES)[number];

// ---- results (seed 000 §6.2–6.6; extra fields are additions the seed leaves open) ----

const lineWindow = { lineStart: z.number().int(), lineEnd: z.number().int(), totalLines: z.number().int() };

export const FsReadOkSchema = z.discriminatedUnion("truncated", [
  z.object({ ok: z.literal(true), path: z.string(), bytes: z.number().int(), sha256: z.string(), truncated: z.literal(false), content: z.string(), ...lineWindow }),
  z.object({ ok: z.literal(true), path: z.string(), bytes: z.number().int(), sha256: z.string(), truncated: z.literal(true), contentPreview: z.string(), hint: z.string(), ...lineWindow }),
]);
export type FsReadOk = z.infer<typeof FsReadOkSchema>;
export type FsReadResult = FsReadOk | ToolFailureResult;

export const FsSearchMatchSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int().optional(),
  text: z.string(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
});
export const FsSearchOkSchema = z.object({
  ok: z.literal(true),
  matches: z.array(FsSearchMatchSchema),
  truncated: z.boolean().optional(),
  hint: z.string().optional(),
  stats: z
    .object({
      filesScanned: z.number().int().optional(),
      matchesFound: z.number().int().optional(),
      filesSkipped: z.record(z.string(), z.number().int()).optional(),
    })
    .optional(),
});
export type FsSearchMatch = z.infer<typeof FsSearchMatchSchema>;
export type FsSearchOk = z.infer<typeof FsSearchOkSchema>;
export type FsSearchResult = FsSearchOk | ToolFailureResult;

export const FS_ENTRY_TYPES = ["file", "dir", "symlink", "other"] as const;
export const FsListItemSchema = z.object({ path: z.string(), type: z.enum(FS_ENTRY_TYPES), bytes: z.number().int().optional() });
export type FsListItem = z.infer<typeof FsListItemSchema>;
/** `entries` are paths relative to the listed folder, folders ending in `/`; `items` add type and size. */
export const FsListOkSchema = z.discriminatedUnion("truncated", [
  z.object({ ok: z.literal(true), path: z.string(), entries: z.array(z.string()), items: z.array(FsListItemSchema), truncated: z.literal(false) }),
  z.object({ ok: z.literal(true), path: z.string(), entriesPreview: z.array(z.string()), items: z.array(FsListItemSchema), truncated: z.literal(true), hint: z.string().optional() }),
]);
export type FsListOk = z.infer<typeof FsListOkSchema>;
export type FsListResult = FsListOk | ToolFailureResult;

export const FsWriteOkSchema = z.object({
  ok: z.literal(true),
  path: z.string(),
  bytesWritten: z.number().int(),
  sha256After: z.string().optional(),
  /** null when the file did not exist before. */
  sha256Before: z.string().nullable().optional(),
  created: z.boolean().optional(),
});
export type FsWriteOk = z.infer<typeof FsWriteOkSchema>;
export type FsWriteResult = FsWriteOk | ToolFailureResult;

export const FsApplyPatchOkSchema = z.object({
  ok: z.literal(true),
  path: z.string(),
  sha256Before: z.string().nullable().optional(),
  sha256After: z.string().optional(),
  /** Hunks or search/replace blocks applied; absent for `updateFrontmatter`. */
  applied: z.number().int().optional(),
});
export type FsApplyPatchOk = z.infer<typeof FsApplyPatchOkSchema>;
export type FsApplyPatchResult = FsApplyPatchOk | ToolFailureResult;

/** Seed 000 §6.6: structured update of a Markdown document's YAML frontmatter. */
export const FrontmatterUpdateSchema = z
  .object({
    stepsCompleted: z
      .object({ append: z.array(z.string()) })
      .strict()
      .optional(),
    variables: z
      .object({ set: z.record(z.string(), z.unknown()) })
      .strict()
      .optional(),
    decisionLog: z
      .object({ append: z.array(z.record(z.string(), z.unknown())) })
      .strict()
      .optional(),
    artifacts: z
      .object({ append: z.array(z.string()) })
      .strict()
      .optional(),
    currentNodeId: z
      .object({ set: z.string().min(1) })
      .strict()
      .optional(),
    updatedAt: z
      .object({ set: z.iso.datetime({ offset: true }) })
      .strict()
      .optional(),
  })
  .strict();
export type FrontmatterUpdate = z.infer<typeof FrontmatterUpdateSchema>;

export const ShellExecOkSchema = z.object({
  ok: z.literal(true),
  argv: z.array(z.string()),
  cwd: z.string(),
  /** null when the process was killed by a signal. */
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  /** Set when the tool host ended the process group because its output passed the cap. */
  killedBy: z.literal("output-limit").optional(),
  durationMs: z.number(),
});
export type ShellExecOk = z.infer<typeof ShellExecOkSchema>;
export type ShellExecResult = ShellExecOk | ToolFailureResult;

// ---- configuration ----

const KiB = 1024;
const MiB = 1024 * KiB;

export const ToolLimitsSchema = z.object({
  /** Most bytes of file text one `fs.read` returns; more gives `truncated: true` and a preview. */
  maxReadBytes: z
    .number()
    .int()
    .positive()
    .default(128 * KiB),
  /** Files larger than this are not read at all (`E_READ_LIMIT`). */
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(32 * MiB),
  /** Largest content `fs.write` / `fs.apply_patch` may produce (`E_WRITE_LIMIT`). */
  maxWriteBytes: z
    .number()
    .int()
    .positive()
    .default(8 * MiB),
  maxListEntries: z.number().int().positive().default(1000),
  maxSearchMatches: z.number().int().positive().default(200),
  maxSearchFiles: z.number().int().positive().default(5000),
  /** Files larger than this are skipped by `fs.search`. */
  maxSearchFileBytes: z
    .number()
    .int()
    .positive()
    .default(2 * MiB),
  searchTimeMs: z.number().int().positive().default(10_000),
  shellTimeoutMs: z.number().int().positive().default(3000),
  maxShellTimeoutMs: z.number().int().positive().default(60_000),
  /** Cap for stdout and for stderr, each. */
  maxShellOutputBytes: z
    .number()
    .int()
    .positive()
    .default(256 * KiB),
  maxPathBytes: z.number().int().positive().max(4096).default(1024),
  /** http.request: time limit of one attempt unless the call sets one, and the most it may set. */
  httpTimeoutMs: z.number().int().positive().default(30_000),
  maxHttpTimeoutMs: z.number().int().positive().default(300_000),
  /** http.request: largest response body kept (more is cut, `truncated: true`), and the most a call may ask for. */
  httpResponseBytes: z
    .number()
    .int()
    .positive()
    .default(2 * MiB),
  maxHttpResponseBytes: z
    .number()
    .int()
    .positive()
    .default(64 * MiB),
  /** http.request: longest wait before a retry; a server's Retry-After asking for more ends the retries. */
  maxHttpRetryDelayMs: z.number().int().positive().default(30_000),
});
export type ToolLimits = z.infer<typeof ToolLimitsSchema>;

/** One command the shell tool may run. Commands are bare program names resolved on the scrubbed PATH. */
export const CommandRuleSchema = z.object({
  command: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, "a bare program name such as `ls` or `git` (no path, no spaces)"),
  /** When set, the first argument must be one of these (e.g. git: status, log, diff). */
  subcommands: z.array(z.string().min(1)).optional(),
  /**
   * Options refused anywhere in the arguments (also after `--`): exactly, with `=value`, inside a
   * bundle of short options (`-laL`), and, for `--long` options, as any GNU abbreviation (`--deref`).
   */
  deniedArgs: z.array(z.string().min(1)).default([]),
});
export type CommandRule = z.infer<typeof CommandRuleSchema>;
export type CommandRuleInput = z.input<typeof CommandRuleSchema>;

// ---- permissions (seed 002 §8) ----

export const PermissionActionSchema = z.enum(["allow", "ask", "deny"]);
export type PermissionAction = z.infer<typeof PermissionActionSchema>;

/**
 * A permission rule. `tool` is a wildcard over tool names (`fs.*`, `shell.exec`; node types such as
 * `fs:read` match too); `target` a wildcard over the path (`@project/src/**`), for the shell the
 * command line (`git *`), for http.request the URL (`https://api.example.com/**`: `*` stays within
 * one path segment or host label run, `**` matches anything); `agent` a wildcard over agent ids. Absent patterns match everything.
 */
export const PermissionRuleSchema = z
  .object({
    action: PermissionActionSchema,
    tool: z.string().min(1, "a tool name or wildcard (e.g. fs.write, fs.*, shell.exec); leave it out to match every tool").default("*"),
    target: z.string().min(1, "a path or command wildcard (e.g. @project/src/**, git *); leave it out to match every target").optional(),
    agent: z.string().min(1, "an agent id or wildcard; leave it out to match every agent").optional(),
  })
  // A misspelt field must not turn a rule into one that matches everything.
  .strict();
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type PermissionRuleInput = z.input<typeof PermissionRuleSchema>;

/** Rules are checked in order and the last one that matches wins; none matching gives `defaultAction`. */
export const PermissionPolicySchema = z
  .object({
    defaultAction: PermissionActionSchema.default("allow"),
    rules: z.array(PermissionRuleSchema).default([]),
  })
  .strict();
export type PermissionPolicy = z.infer<typeof PermissionPolicySchema>;
export type PermissionPolicyInput = z.input<typeof PermissionPolicySchema>;

export const PermissionRequestSchema = z.object({
  requestId: z.string(),
  tool: z.string(),
  /** The path or command line the call acts on. */
  target: z.string().optional(),
  agentId: z.string().optional(),
  runId: z.string().optional(),
  sessionId: z.string().optional(),
  /** The call's arguments with secrets redacted and long text shortened. */
  args: z.record(z.string(), z.unknown()),
});
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>;

export const PermissionAnswerSchema = z.object({
  answer: z.enum(["once", "always", "reject"]),
  feedback: z.string().optional(),
});
export type PermissionAnswer = z.infer<typeof PermissionAnswerSchema>;

/**
 * Asks someone (the user, through the run's `WaitingUser` state) whether a call may go ahead.
 * `always` allows the same tool and target for the rest of the session.
 */
export interface PermissionGate {
  request(request: PermissionRequest, options?: { signal?: AbortSignal }): Promise<PermissionAnswer>;
}

// ---- the service ----

export interface ToolCallContext {
  runId?: string;
  agentId?: string;
  /** The user on whose behalf the call runs (the run's `createdBy`), named in the audit log; their role decides which credentials http.request may use. */
  userId?: string;
  /**
   * A session spanning several runs (an agent's conversation): groups `always` answers and names
   * the @state/ folder, so state survives from one run to the next. Defaults to the run id.
   */
  sessionId?: string;
  /** The calling agent's own rules (its profile's `permissions`): they can only narrow the settings' rules (deny, or ask where those allow), never open more. */
  agentRules?: readonly PermissionRule[];
  signal?: AbortSignal;
  /** Told how a long call is getting on (http.request: bytes downloaded), so a node can stream it. */
  onProgress?: (progress: Record<string, unknown>) => void;
}

/** The sandboxed file and shell tools as nodes see them (implemented in agent-runtime/toolhost). */
export interface ToolHostService {
  call(tool: string, args: Record<string, unknown>, ctx?: ToolCallContext): Promise<ToolResult>;
}
