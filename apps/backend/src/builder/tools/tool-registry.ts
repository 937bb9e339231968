import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { FunctionTool } from "@weft/types";
import type { BuilderContext } from "../builder-context.ts";
import type { ChangeSetService } from "../changes/change-set-service.ts";
import { BuilderError } from "../domain/errors.ts";
import type { SessionRecord } from "../domain/records.ts";
import { messageOf } from "@weft/types";

/** What a tool answers the model: seed 000 §6 shape, `{ ok: true, … }` or `{ ok: false, error }`. */
export type ToolOutcome = ({ ok: true } & Record<string, unknown>) | { ok: false; error: { code: string; message: string; hint: string; details?: Record<string, unknown> } };

export interface ToolEnv {
  session: SessionRecord;
  ctx: BuilderContext;
  changeSets: ChangeSetService;
}

export interface BuilderTool {
  /** The dotted name of seed 001 §6, e.g. `builder.change.stage`. */
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  run(args: unknown, env: ToolEnv): Promise<ToolOutcome>;
}

/** The one tool the model must never run: applying is the user's click (seed 001 §6.2). */
export const APPLY_TOOL = "builder.change.apply";

/** OpenAI function names cannot hold dots: `builder.change.stage` ↔ `builder_change_stage`. */
export function wireName(name: string): string {
  return name.replaceAll(".", "_");
}

export function failure(code: string, message: string, hint: string, details?: Record<string, unknown>): ToolOutcome {
  return { ok: false, error: { code, message, hint, ...(details ? { details } : {}) } };
}

/** A tool's parameters are a plain JSON Schema object; the `$schema` dialect line is left out for providers that reject unknown keys. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** A tool whose arguments are checked with `args` before it runs; `parameters` is what the model is shown. */
export function defineTool<S extends z.ZodObject>(def: {
  name: string;
  description: string;
  args: S;
  parameters?: Record<string, unknown>;
  run(args: z.output<S>, env: ToolEnv): Promise<ToolOutcome>;
}): BuilderTool {
  const parameters = def.parameters ?? withoutDialect(z.toJSONSchema(def.args, { io: "input" }));
  return {
    name: def.name,
    description: def.description,
    parameters,
    async run(raw, env) {
      const parsed = def.args.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue?.path.length ? issue.path.join(".") : "arguments";
        return failure("AI_TOOL_ARGS_INVALID", `${at}: ${issue?.message ?? "invalid"}`, `call ${wireName(def.name)} again with arguments matching its parameters`, {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
        });
      }
      return def.run(parsed.data, env);
    },
  };
}

const HINTS: Partial<Record<string, string>> = {
  AI_SESSION_NOT_ACTIVE: "the session has ended; tell the user",
  AI_CHANGESET_SUPERSEDED: "use the latest change set (builder_context_get shows it)",
  AI_CHANGESET_NOT_APPLICABLE: "stage a new change set",
  NOT_FOUND: "builder_context_get shows the session's latest change set",
};

/**
 * The tools offered to the model (read tools, stage, validate, discard) and the dispatcher that
 * runs a native tool call: names mapped from their wire form, arguments parsed and checked,
 * `builder.change.apply` refused with AI_TOOL_FORBIDDEN, refusals returned as results the model reads.
 */
export class BuilderToolbox {
  private readonly byWire: Map<string, BuilderTool>;

  constructor(private readonly tools: readonly BuilderTool[]) {
    this.byWire = new Map(tools.map((t) => [wireName(t.name), t]));
  }

  openAiTools(): FunctionTool[] {
    return this.tools.map((t) => ({ type: "function", function: { name: wireName(t.name), description: t.description, parameters: t.parameters } }));
  }

  names(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** The dotted name a call means (`builder_change_stage`, `builder.change.stage` and `Builder_Change_Stage` all resolve). */
  resolve(called: string): string {
    const wire = wireName(called.trim()).toLowerCase();
    return this.byWire.get(wire)?.name ?? (wire === wireName(APPLY_TOOL) ? APPLY_TOOL : called);
  }

  async call(called: string, argumentsText: string, env: ToolEnv): Promise<{ name: string; outcome: ToolOutcome }> {
    const name = this.resolve(called);
    if (name === APPLY_TOOL) {
      return {
        name,
        outcome: failure(
          "AI_TOOL_FORBIDDEN",
          "builder.change.apply is not available to the model: only the user applies a change, from the workbench.",
          "stop; tell the user the change is ready to review in the preview and to click Apply",
        ),
      };
    }
    const tool = this.byWire.get(wireName(name).toLowerCase());
    if (!tool) {
      return { name: called, outcome: failure("AI_TOOL_UNKNOWN", `There is no tool "${called}".`, `use one of: ${[...this.byWire.keys()].join(", ")}`) };
    }
    let args: unknown;
    try {
      args = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
    } catch (error) {
      return { name, outcome: failure("AI_TOOL_ARGS_INVALID", `The arguments are not valid JSON (${messageOf(error)}).`, `call ${wireName(name)} again with one complete JSON object`) };
    }
    if (args !== null && typeof args === "object" && !Array.isArray(args) && "sessionId" in args) {
      // Seed 001's tools name the session; here the call always runs in its own session.
      const { sessionId, ...rest } = args as Record<string, unknown>;
      if (sessionId !== env.session.id) return { name, outcome: failure("AI_TOOL_ARGS_INVALID", `sessionId "${String(sessionId)}" is not this session (${env.session.id}).`, "leave sessionId out") };
      args = rest;
    }
    try {
      return { name, outcome: await tool.run(args, env) };
    } catch (error) {
      if (error instanceof BuilderError) return { name, outcome: failure(error.code, error.message, HINTS[error.code] ?? "read the message and adjust the call", error.details) };
      // A server bug must not end the turn: the model is told, the log has the details.
      const incident = randomUUID();
      env.ctx.log.error("builder tool failed", { incident, tool: name, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return { name, outcome: failure("AI_TOOL_FAILED", `${name} failed on the server (incident ${incident}).`, "try another way, or tell the user the incident id") };
    }
  }
}
