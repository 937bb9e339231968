import { z } from "zod";
import {
  ToolCallSchema,
  workflowInterface,
  type ChatMessage,
  type FunctionTool,
  type NodeError,
  type NodeServices,
  type RunEventSink,
  type Workflow,
  type WorkflowSource,
  messageOf,
} from "@weft/types";
import type { ExecutionEngine } from "../engine/index.ts";
import { freezeWorkflow } from "../engine/frozen-workflow.ts";
import { agentError, fail, ok, type AgentResult } from "./errors.ts";

/** What the LLM said in one deliberation. */
export interface LlmOutput {
  text: string;
  reasoning?: string;
  toolCalls: z.infer<typeof ToolCallSchema>[];
  /** Why the model stopped (`stop`, `length`, `tool_calls`, …), when the workflow tells. */
  finishReason?: string;
}

export type DeliberationOutcome =
  | { ok: true; runId: string; durationMs: number; output: LlmOutput }
  /** `partial` holds what was streamed before the failure. */
  | { ok: false; runId: string; durationMs: number; status: "failed" | "cancelled"; error: NodeError; partial: LlmOutput };

export interface DeliberationInputs {
  system: string;
  messages: ChatMessage[];
  /** Native tools; only for the `openai-tools` protocol. */
  tools?: FunctionTool[];
}

const ToolCallsSchema = z.array(ToolCallSchema);

/**
 * The agent's deliberation workflow (seed 004 §3.3 step 2): run by the engine with the context as
 * interface inputs `system` (string), `messages` (messages) and, for native tool calls, `tools`
 * (json); its outputs `text`, `reasoning` and `toolCalls` are the LLM's raw output.
 */
export class Deliberation {
  private constructor(
    readonly workflow: Workflow,
    private readonly takesSystem: boolean,
    private readonly takesTools: boolean,
  ) {}

  static async load(workflows: WorkflowSource, id: string, protocol: "action-xml" | "openai-tools"): Promise<AgentResult<Deliberation>> {
    let workflow: Workflow | undefined;
    try {
      workflow = await workflows.getWorkflow(id);
    } catch (error) {
      return fail(
        agentError(
          "WORKFLOW_SOURCE_FAILED",
          `The deliberation workflow "${id}" could not be loaded: ${messageOf(error)}`,
          "Fix the workflow file, or point deliberationWorkflowId at another workflow.",
        ),
      );
    }
    if (!workflow) {
      return fail(
        agentError("DELIBERATION_WORKFLOW_NOT_FOUND", `There is no deliberation workflow "${id}".`, 'Save it, or set deliberationWorkflowId to "agent-deliberation", the default one.', {
          workflowId: id,
        }),
      );
    }
    const iface = workflowInterface(workflow);
    const input = (name: string) => iface.inputs.find((p) => p.name === name);
    const output = (name: string) => iface.outputs.find((p) => p.name === name);
    const problems: string[] = [];
    if (!input("messages")) problems.push('an input "messages" (messages)');
    if (!output("text")) problems.push('an output "text" (string)');
    if (protocol === "openai-tools") {
      if (!input("tools")) problems.push('an input "tools" (json), for the native tool-call protocol');
      if (!output("toolCalls")) problems.push('an output "toolCalls" (array), for the native tool-call protocol');
    }
    const unknownRequired = iface.inputs.filter((p) => p.required && !["system", "messages", "tools"].includes(p.name)).map((p) => p.name);
    if (unknownRequired.length > 0) problems.push(`no required inputs besides system, messages and tools (it requires ${unknownRequired.join(", ")})`);
    if (problems.length > 0) {
      return fail(
        agentError(
          "INVALID_DELIBERATION_WORKFLOW",
          `The deliberation workflow "${id}" needs ${problems.join(", ")}.`,
          "Start from workflows/agent-deliberation.json: it wires these to an llm:chat node.",
          {
            workflowId: id,
          },
        ),
      );
    }
    // Run every step: a frozen copy, so the engine compiles its graph once (the source's object stays the caller's).
    return ok(new Deliberation(freezeWorkflow(structuredClone(workflow)), Boolean(input("system")), Boolean(input("tools"))));
  }

  async run(engine: ExecutionEngine, inputs: DeliberationInputs, options: { runId: string; signal?: AbortSignal; onEvent?: RunEventSink; services?: NodeServices }): Promise<DeliberationOutcome> {
    const t0 = performance.now();
    const messages = this.takesSystem || !inputs.system ? inputs.messages : [{ role: "system" as const, content: inputs.system }, ...inputs.messages];
    const runInputs: Record<string, unknown> = { messages };
    if (this.takesSystem) runInputs.system = inputs.system;
    if (this.takesTools && inputs.tools && inputs.tools.length > 0) runInputs.tools = inputs.tools;
    const run = await engine.run(this.workflow, {
      runId: options.runId,
      inputs: runInputs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.services ? { services: options.services } : {}),
    });
    const durationMs = performance.now() - t0;
    if (run.status !== "completed") {
      const error = run.error ?? { code: run.status === "cancelled" ? "CANCELLED" : "FAILED", message: `the deliberation run ${run.status}` };
      const streamed = run.observations
        .filter((o) => o.nodeType === "llm:chat")
        .flatMap((o) => o.chunks)
        .filter((c): c is string => typeof c === "string")
        .join("");
      const cause = (error.details?.cause ?? {}) as { partialText?: unknown; partialReasoning?: unknown };
      const text = typeof cause.partialText === "string" && cause.partialText.length >= streamed.length ? cause.partialText : streamed;
      const reasoning = typeof cause.partialReasoning === "string" && cause.partialReasoning ? cause.partialReasoning : undefined;
      // A deliberation's run cannot pause (it is not `mayPause`), so it never ends waiting.
      return { ok: false, runId: options.runId, durationMs, status: run.status === "waiting" ? "failed" : run.status, error, partial: { text, ...(reasoning ? { reasoning } : {}), toolCalls: [] } };
    }
    const out = run.outputs;
    const toolCalls = out.toolCalls === undefined || out.toolCalls === null ? { success: true as const, data: [] } : ToolCallsSchema.safeParse(out.toolCalls);
    if (!toolCalls.success) {
      const error: NodeError = {
        code: "INVALID_DELIBERATION_OUTPUT",
        message: `the deliberation workflow's "toolCalls" output is not a list of tool calls: ${toolCalls.error.issues[0]?.message ?? "wrong shape"}`,
      };
      return { ok: false, runId: options.runId, durationMs, status: "failed", error, partial: { text: textOf(out.text), toolCalls: [] } };
    }
    const reasoning = textOf(out.reasoning);
    const finishReason = finishReasonOf(out, run.observations);
    return {
      ok: true,
      runId: options.runId,
      durationMs,
      output: { text: textOf(out.text), ...(reasoning ? { reasoning } : {}), toolCalls: toolCalls.data, ...(finishReason ? { finishReason } : {}) },
    };
  }
}

/**
 * The workflow's `finishReason` output, else that of its last LLM call: deliberation workflows
 * written before it was an output still tell the loop that the answer was cut off.
 */
function finishReasonOf(outputs: Record<string, unknown>, observations: readonly { nodeType: string; outputs?: Record<string, unknown> | null }[]): string | undefined {
  if (typeof outputs.finishReason === "string" && outputs.finishReason !== "") return outputs.finishReason;
  for (let i = observations.length - 1; i >= 0; i--) {
    const o = observations[i]!;
    if (o.nodeType !== "llm:chat") continue;
    const reason = o.outputs?.finishReason;
    return typeof reason === "string" && reason !== "" ? reason : undefined;
  }
  return undefined;
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}
