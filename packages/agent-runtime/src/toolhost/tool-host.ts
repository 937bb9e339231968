import { randomUUID } from "node:crypto";
import { closest } from "fastest-levenshtein";
import {
  CommandRuleSchema,
  PermissionAnswerSchema,
  PermissionPolicySchema,
  TOOL_NAMES,
  ToolLimitsSchema,
  createLogger,
  type CommandRule,
  type CommandRuleInput,
  type CredentialResolver,
  type Logger,
  type PermissionAnswer,
  type PermissionGate,
  type PermissionPolicy,
  type PermissionPolicyInput,
  type PermissionRule,
  type ToolCallContext,
  type ToolHostService,
  type ToolLimits,
  type ToolResult,
  messageOf,
} from "@weft/types";
import { limitsHit, redactText, summariseArgs, summariseResult } from "./audit/redact.ts";
import type { AuditLog, AuditPermission } from "./audit/audit-log.ts";
import { Mounts, type MountRoots } from "./fs/mounts.ts";
import { PathQueue, sharedPathQueue } from "./fs/path-queue.ts";
import { assertProcFdAvailable } from "./fs/secure-fs.ts";
import { pathRulesFor } from "./permissions/path-rules.ts";
import { urlRulesFor } from "./permissions/url-rules.ts";
import { decidePermission, type PermissionDecision, type RuleLayers } from "./permissions/rules.ts";
import { DEFAULT_COMMAND_RULES } from "./shell/allowlist.ts";
import { SANDBOX_HELP, probeBubblewrap, type ShellSandbox } from "./shell/bubblewrap.ts";
import { DEFAULT_ENV_ALLOWLIST } from "./shell/environment.ts";
import type { ToolDefinition, ToolEnv, ToolSource } from "./tool.ts";
import { ToolFailure, failureResult } from "./tool-failure.ts";
import { fsApplyPatch } from "./tools/fs-apply-patch.ts";
import { fsList } from "./tools/fs-list.ts";
import { fsRead } from "./tools/fs-read.ts";
import { fsSearch } from "./tools/fs-search.ts";
import { fsWrite } from "./tools/fs-write.ts";
import { httpRequest } from "./tools/http-request.ts";
import { a2aCall } from "./tools/a2a-call.ts";
import { shellExec } from "./tools/shell-exec.ts";

const BUILTIN_TOOLS: readonly ToolDefinition[] = [fsRead, fsSearch, fsList, fsWrite, fsApplyPatch, shellExec, httpRequest, a2aCall];

export interface ToolHostOptions {
  mounts: MountRoots;
  limits?: Partial<ToolLimits>;
  /** The shell allowlist; default: read-only tools (see DEFAULT_COMMAND_RULES). */
  commands?: CommandRuleInput[];
  /** Host environment variables a command may see (secret-looking names are dropped regardless). */
  envAllowlist?: string[];
  /** Where allowlisted variables are read from; default `process.env`. */
  hostEnv?: Record<string, string | undefined>;
  permissions?: PermissionPolicyInput;
  /** Asked when a rule says `ask`; without one, such calls are refused. */
  gate?: PermissionGate;
  audit?: AuditLog;
  queue?: PathQueue;
  logger?: Logger;
  /**
   * How shell commands are isolated: `bwrap` (default) runs each inside bubblewrap with only the
   * mounts, and shell.exec refuses to run when bubblewrap cannot work here; `off` runs them
   * directly (an explicit opt-out: WEFT_SHELL_SANDBOX=off).
   */
  shellSandbox?: "bwrap" | "off";
  /** Whether sandboxed commands may use the network; default false. */
  shellNetwork?: boolean;
  /** The named credentials http.request may use (the backend's encrypted store). */
  credentials?: CredentialResolver;
}

/** What the audit record of a call says beyond its arguments and result. */
interface CallTrail {
  target?: string;
  permission?: AuditPermission;
}

/** `FS.Read`, `fs:read`, `fs:apply-patch` → the tool's own name (seed 002 §8: tool-name repair). */
function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(":", ".").replace(/-/g, "_");
}

function describeSource(decision: PermissionDecision): string {
  switch (decision.source.kind) {
    case "rule":
      return `rule ${decision.source.index + 1}`;
    case "agent":
      return `the agent's rule ${decision.source.index + 1}`;
    case "session":
      return `session rule ${decision.source.index + 1}`;
    case "default":
      return "default";
    default: {
      const never: never = decision.source;
      return never;
    }
  }
}

/**
 * The sandboxed file, shell and HTTP tools (seed 000 §6, seed 002). `call` validates the arguments,
 * resolves paths inside the mounts, applies the permission rules (asking the gate when a rule says
 * `ask`), runs the tool, and audits it: a `started` record before a permitted call does anything,
 * a `completed` one when any call ends (calls a crash cut off are marked `interrupted` at the next
 * start). It never throws, every outcome is a `ToolResult`. Shell commands run inside bubblewrap
 * (see shell/bubblewrap.ts) unless `shellSandbox` is `off`.
 */
export class ToolHost implements ToolHostService {
  readonly limits: ToolLimits;
  readonly commands: CommandRule[];
  private readonly mounts: Mounts;
  private readonly tools = new Map<string, ToolDefinition>(BUILTIN_TOOLS.map((t) => [t.name, t]));
  private readonly sessionRules = new Map<string, PermissionRule[]>();
  /** Allow rules that answer an `ask` in every session (an MCP server's `autoApprove`, set by the owner). */
  private standingAnswers: readonly PermissionRule[] = [];
  private readonly sources: ToolSource[] = [];
  private readonly logger: Logger;
  private readonly sandbox: ShellSandbox;
  /** Calls under way, so `close` can stop them and wait for their records. */
  private readonly running = new Map<AbortController, Promise<ToolResult>>();
  private closed = false;
  private currentPolicy: PermissionPolicy;

  constructor(private readonly options: ToolHostOptions) {
    assertProcFdAvailable();
    this.mounts = new Mounts(options.mounts);
    this.limits = ToolLimitsSchema.parse(options.limits ?? {});
    this.currentPolicy = PermissionPolicySchema.parse(options.permissions ?? {});
    this.commands = options.commands ? options.commands.map((c) => CommandRuleSchema.parse(c)) : DEFAULT_COMMAND_RULES;
    this.logger = options.logger ?? createLogger("toolhost");
    const auditFile = options.audit?.file;
    const exposed = auditFile ? this.mounts.visibleMountOf(auditFile) : undefined;
    if (exposed) throw new Error(`The audit file ${auditFile} is inside the @${exposed}/ mount, where tools could read or change it; put it elsewhere.`);
    this.sandbox = this.chooseSandbox();
    void options.audit?.recoverInterrupted().then((ids) => {
      if (ids.length > 0) this.logger.warn("tool calls were interrupted by the previous shutdown; marked in the audit log", { count: ids.length, file: auditFile });
    });
  }

  private chooseSandbox(): ShellSandbox {
    if (this.options.shellSandbox === "off") {
      this.logger.warn("shell commands run WITHOUT a sandbox (WEFT_SHELL_SANDBOX=off): they can read everything this user can, outside the mounts too");
      return { kind: "off" };
    }
    const sandbox = probeBubblewrap(this.options.shellNetwork ?? false);
    if (sandbox.kind === "unavailable") this.logger.warn(`shell.exec is unavailable: ${sandbox.reason}. ${SANDBOX_HELP}`);
    return sandbox;
  }

  /** The settings' permission rules now in force. */
  get policy(): PermissionPolicy {
    return this.currentPolicy;
  }

  /**
   * Replaces the settings' rules (the user changed them): calls decided from now on use the new ones,
   * calls already waiting for an answer keep theirs. `always` answers given in sessions stay.
   */
  setPolicy(policy: PermissionPolicyInput): void {
    this.currentPolicy = PermissionPolicySchema.parse(policy);
  }

  /**
   * Replaces the rules that answer an `ask` for every session, as an `always` answer would: they settle
   * an `ask` and can never open what the settings deny (the owner's MCP `autoApprove` lists).
   */
  setStandingAnswers(rules: readonly PermissionRule[]): void {
    this.standingAnswers = rules.filter((rule) => rule.action === "allow");
  }

  /** Adds tools found by name at call time; they go through the same permission rules and audit log. */
  addToolSource(source: ToolSource): void {
    this.sources.push(source);
  }

  private definitionOf(tool: string): ToolDefinition | undefined {
    const builtin = this.tools.get(tool) ?? this.tools.get(canonicalName(tool));
    if (builtin) return builtin;
    for (const source of this.sources) {
      const found = source.get(tool);
      if (found) return found;
    }
    return undefined;
  }

  /** Allow rules added by `always` answers in a session. */
  sessionRulesOf(sessionId: string): readonly PermissionRule[] {
    return this.sessionRules.get(sessionId) ?? [];
  }

  async call(tool: string, args: Record<string, unknown>, ctx: ToolCallContext = {}): Promise<ToolResult> {
    if (this.closed) return failureResult("E_ABORTED", "The tool host is shutting down; the call was not started.");
    // Linked to the caller's signal; `close` aborts it too.
    const controller = new AbortController();
    const stopWith = () => controller.abort();
    ctx.signal?.addEventListener("abort", stopWith, { once: true });
    if (ctx.signal?.aborted) controller.abort();
    const call = this.run(tool, args, { ...ctx, signal: controller.signal });
    this.running.set(controller, call);
    try {
      return await call;
    } finally {
      this.running.delete(controller);
      ctx.signal?.removeEventListener("abort", stopWith);
    }
  }

  /**
   * Refuses new calls, cancels those under way (their commands are killed with everything they
   * started) and resolves once each has written its audit record.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.running.keys()) controller.abort();
    await Promise.all(this.running.values());
  }

  private async run(tool: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
    const started = performance.now();
    const callId = randomUUID();
    const definition = this.definitionOf(tool);
    const trail: CallTrail = {};
    const who = {
      callId,
      ...(ctx.runId ? { runId: ctx.runId } : {}),
      ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
      ...(ctx.userId ? { userId: ctx.userId } : {}),
      tool: definition?.name ?? tool,
      ...(definition && definition.name !== tool ? { requestedTool: tool } : {}),
    };
    const where = () => ({ ...(trail.target !== undefined ? { target: redactText(trail.target) } : {}), ...(trail.permission ? { permission: trail.permission } : {}) });
    let result: ToolResult;
    try {
      if (!definition) {
        const nearest = closest(canonicalName(tool), [...TOOL_NAMES]);
        throw new ToolFailure("E_UNKNOWN_TOOL", `Unknown tool ${JSON.stringify(tool)}. Did you mean "${nearest}"? Available: ${TOOL_NAMES.join(", ")}.`, { tool, suggestion: nearest });
      }
      if (ctx.signal?.aborted) throw new ToolFailure("E_ABORTED", "The call was cancelled before it started.");
      const planned = definition.plan(args, this.env(ctx));
      trail.target = planned.target;
      await this.authorise(definition, planned.target, args, ctx, trail);
      await this.options.audit?.append({ status: "started", ts: new Date().toISOString(), ...who, ...where(), args: summariseArgs(args) });
      result = await planned.execute();
    } catch (error) {
      result = this.toFailure(error, tool, ctx);
    }
    await this.options.audit?.append({
      status: "completed",
      ts: new Date().toISOString(),
      ...who,
      ...where(),
      args: summariseArgs(args),
      result: summariseResult(result),
      durationMs: Math.round(performance.now() - started),
      limits: limitsHit(result),
    });
    return result;
  }

  /** Applies the permission rules to a planned call, asking the gate when they say `ask`; throws when the call may not run. */
  private async authorise(definition: ToolDefinition, target: string, args: Record<string, unknown>, ctx: ToolCallContext, trail: CallTrail): Promise<void> {
    const sessionId = ctx.sessionId ?? ctx.runId;
    const query = { tool: definition.name, target, targetKind: definition.targetKind, agentId: ctx.agentId };
    const decision = decidePermission(this.currentPolicy, query, this.layersOf(ctx));
    // The standing answers come first in the session layer (layersOf).
    const standing = decision.source.kind === "session" && decision.source.index < this.standingAnswers.length;
    const permission: NonNullable<CallTrail["permission"]> = { decision: decision.action, source: standing ? "autoApprove (Settings → MCP servers)" : describeSource(decision) };
    trail.permission = permission;
    switch (decision.action) {
      case "allow":
        return;
      case "deny":
        throw new ToolFailure(
          "E_PERMISSION_DENIED",
          `${definition.name} on ${target} is denied by the permission settings (${permission.source}). Do not retry it; choose another way or ask the user.`,
          {
            tool: definition.name,
            target,
          },
        );
      case "ask": {
        const answer = await this.ask(definition, target, args, ctx);
        permission.answer = answer.answer;
        if (answer.answer === "reject") {
          const feedback = answer.feedback?.trim();
          throw new ToolFailure(
            "E_PERMISSION_DENIED",
            `The user rejected ${definition.name} on ${target}.${feedback ? ` Their feedback: ${feedback}` : " Do not retry the same call; change the approach or ask the user."}`,
            {
              tool: definition.name,
              target,
              ...(feedback ? { feedback } : {}),
            },
          );
        }
        if (answer.answer === "always" && sessionId) {
          const rules = this.sessionRules.get(sessionId) ?? [];
          rules.push({ action: "allow", tool: definition.name, target, ...(ctx.agentId ? { agent: ctx.agentId } : {}) });
          this.sessionRules.set(sessionId, rules);
        }
        return;
      }
      default: {
        const never: never = decision.action;
        throw new Error(`unknown permission action ${String(never)}`);
      }
    }
  }

  /** The rules checked after the settings' for a call: its agent's own, then its session's. */
  private layersOf(ctx: ToolCallContext): RuleLayers {
    const sessionId = ctx.sessionId ?? ctx.runId;
    return { agentRules: ctx.agentRules ?? [], sessionRules: [...this.standingAnswers, ...(sessionId ? this.sessionRulesOf(sessionId) : [])] };
  }

  private env(ctx: ToolCallContext): ToolEnv {
    return {
      sandbox: this.sandbox,
      pathRules: pathRulesFor(this.currentPolicy, this.layersOf(ctx), ctx.agentId),
      urlRules: urlRulesFor(this.currentPolicy, this.layersOf(ctx), ctx.agentId),
      ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
      ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
      ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      mounts: this.mounts,
      limits: this.limits,
      commands: this.commands,
      envAllowlist: this.options.envAllowlist ?? DEFAULT_ENV_ALLOWLIST,
      hostEnv: this.options.hostEnv ?? process.env,
      queue: this.options.queue ?? sharedPathQueue,
      ...((ctx.sessionId ?? ctx.runId) !== undefined ? { stateScope: ctx.sessionId ?? ctx.runId } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    };
  }

  private async ask(definition: ToolDefinition, target: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<PermissionAnswer> {
    const gate = this.options.gate;
    if (!gate) {
      throw new ToolFailure("E_PERMISSION_DENIED", `${definition.name} on ${target} needs the user's approval, and nobody can be asked here. Choose another way.`, { tool: definition.name, target });
    }
    const request = {
      requestId: randomUUID(),
      tool: definition.name,
      target: redactText(target),
      args: summariseArgs(args),
      ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
      ...(ctx.runId ? { runId: ctx.runId } : {}),
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    };
    let raw: unknown;
    try {
      raw = await gate.request(request, ctx.signal ? { signal: ctx.signal } : {});
    } catch (error) {
      if (ctx.signal?.aborted) throw new ToolFailure("E_ABORTED", `The call was cancelled while waiting for approval of ${definition.name} on ${target}.`);
      throw error;
    }
    const answer = PermissionAnswerSchema.safeParse(raw);
    if (!answer.success) throw new ToolFailure("E_INTERNAL", "The permission answer was malformed; treating it as a refusal.", { tool: definition.name, target });
    return answer.data;
  }

  private toFailure(error: unknown, tool: string, ctx: ToolCallContext): ToolResult {
    if (error instanceof ToolFailure) return error.toResult();
    const message = messageOf(error);
    this.logger.error("tool failed unexpectedly", { tool, error: message });
    // System errors name real paths; the model only knows mount paths.
    return failureResult("E_INTERNAL", `${tool} failed unexpectedly: ${this.mounts.virtualise(message, ctx.sessionId ?? ctx.runId)}`);
  }
}

/** A tool host bound to an agent or session: every call carries these context fields unless it names its own. */
export function withCallContext(host: ToolHostService, defaults: ToolCallContext): ToolHostService {
  return {
    call: (tool, args, ctx = {}) => {
      const given = Object.fromEntries(Object.entries(ctx).filter(([, value]) => value !== undefined));
      return host.call(tool, args, { ...defaults, ...given });
    },
  };
}
