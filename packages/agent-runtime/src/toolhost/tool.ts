import type { z } from "zod";
import type { CommandRule, CredentialResolver, ToolLimits, ToolName, ToolResult } from "@weft/types";
import type { Mounts } from "./fs/mounts.ts";
import type { PathQueue } from "./fs/path-queue.ts";
import type { PathRules } from "./permissions/path-rules.ts";
import type { TargetKind } from "./permissions/rules.ts";
import type { UrlRules } from "./permissions/url-rules.ts";
import type { ShellSandbox } from "./shell/bubblewrap.ts";
import { ToolFailure } from "./tool-failure.ts";

/** What a tool works with during one call. */
export interface ToolEnv {
  mounts: Mounts;
  limits: ToolLimits;
  commands: CommandRule[];
  envAllowlist: readonly string[];
  hostEnv: Record<string, string | undefined>;
  queue: PathQueue;
  /** How shell commands are isolated. */
  sandbox: ShellSandbox;
  /** The permission rules of this call, for the paths it reaches beyond its target. */
  pathRules: PathRules;
  /** The permission rules of this call for the URLs it reaches (http.request's redirects, private addresses). */
  urlRules: UrlRules;
  /** The named credentials http.request may use; absent when no store is configured. */
  credentials?: CredentialResolver;
  /** The user the call runs for (ToolCallContext.userId): whose role decides which credentials it may use. */
  userId?: string;
  onProgress?: (progress: Record<string, unknown>) => void;
  /** Names this call's @state/ folder: the session id, or else the run id. */
  stateScope?: string;
  signal?: AbortSignal;
}

/** A call whose arguments and path passed every check, ready for the permission decision. */
export interface PlannedCall {
  /** What permission rules match against: the canonical mount path, or the command line. */
  target: string;
  execute(): Promise<ToolResult>;
}

export interface ToolDefinition {
  /** A built-in tool's name, or another source's (`mcp:<server>.<tool>`). */
  name: ToolName | `${string}:${string}`;
  /** How permission rule targets match: path globs (`@project/src/**`), command or URL wildcards. */
  targetKind: TargetKind;
  /** Validates the arguments and resolves the path or command; throws `ToolFailure` on refusal. */
  plan(raw: unknown, env: ToolEnv): PlannedCall;
}

/** Tools beyond the built-in ones, found by name when called (the backend's MCP servers). */
export interface ToolSource {
  get(name: string): ToolDefinition | undefined;
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(arguments)"}: ${i.message}`).join("; ");
}

export function defineTool<S extends z.ZodType>(spec: { name: ToolName; targetKind: TargetKind; args: S; plan(args: z.output<S>, env: ToolEnv): PlannedCall }): ToolDefinition {
  return {
    name: spec.name,
    targetKind: spec.targetKind,
    plan(raw, env) {
      const parsed = spec.args.safeParse(raw);
      if (!parsed.success) {
        throw new ToolFailure("E_SCHEMA_VALIDATION", `Invalid arguments for ${spec.name}: ${describeIssues(parsed.error.issues)}.`, {
          issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
        });
      }
      return spec.plan(parsed.data, env);
    },
  };
}
