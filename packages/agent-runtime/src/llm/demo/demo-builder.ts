import { z } from "zod";
import { BuilderTargetSchema, WorkflowSchema, type Workflow } from "@weft/types";
import { draftChange } from "./builder-edits.ts";
import type { EditEnv } from "./builder-env.ts";
import { BUILDER_INTENT_EXAMPLES, parseBuilderIntent } from "./builder-intent.ts";
import { failureOf, TurnReads, type PlannedCall } from "./builder-reads.ts";
import { findCall, lastCall, readBuilderTurn, type BuilderTurn, type OfferedBuilderTools } from "./builder-turn.ts";
import type { DemoMessage } from "./demo-request.ts";

/**
 * The demo LLM in a Builder session: a fixed plan replayed from the conversation. It reads the
 * target (builder_context_get, and the nodes and node types a change touches), stages the change
 * a supported request asks for, validates it (discarding it when invalid: the demo cannot repair)
 * and ends with a short summary; any other request gets the list of what it understands.
 */
export type BuilderStep = { kind: "call"; calls: { name: string; args: Record<string, unknown> }[] } | { kind: "say"; text: string };

const ContextSchema = z.looseObject({
  ok: z.literal(true),
  session_meta: z.looseObject({ target: BuilderTargetSchema, label: z.string().optional() }),
  target_snapshot: z.looseObject({ exists: z.boolean(), value: z.unknown() }),
});
const WorkflowReadSchema = z.looseObject({ ok: z.literal(true), workflow: WorkflowSchema });
const StagedSchema = z.looseObject({ ok: z.literal(true), changeSetId: z.string(), warnings: z.array(z.string()).optional() });
const ValidatedSchema = z.looseObject({
  ok: z.literal(true),
  changeSetId: z.string(),
  valid: z.boolean(),
  errors: z.array(z.looseObject({ message: z.string(), hint: z.string().optional() })).default([]),
});
/** The operation names the stage tool's JSON Schema allows, where it lists them. */
const StageParametersSchema = z.looseObject({
  properties: z.looseObject({ operations: z.looseObject({ items: z.looseObject({ properties: z.looseObject({ op: z.looseObject({ enum: z.array(z.string()) }) }) }) }) }),
});

const REAL_PROFILE = "a real OpenAI-compatible LLM profile gives full answers: add one under ⚙ Settings → LLM profiles and choose it for the Builder";
const TAIL = `I am Weft's offline demo model and understand only a few requests; ${REAL_PROFILE}.`;

function helpAnswer(about: string): string {
  return [
    about,
    "",
    "I am Weft's offline demo model, so in the Builder I understand only these requests:",
    ...BUILDER_INTENT_EXAMPLES.map((e) => `- ${e}`),
    `For anything else, ${REAL_PROFILE}.`,
  ].join("\n");
}

export function planBuilderStep(messages: readonly DemoMessage[], tools: OfferedBuilderTools): BuilderStep {
  const turn = readBuilderTurn(messages);
  if (turn.repair) {
    return say(`I cannot repair this change myself. Discard it in the workbench, or ask for one of the simple changes I know. ${TAIL}`);
  }
  if (!tools.context) return say(helpAnswer("This server offers no builder_context_get tool, so I cannot see what this session is about."));
  const contextCall = findCall(turn, "context");
  if (!contextCall) return call(tools, [{ key: "context", args: {} }]);
  const failed = failureOf(contextCall.result);
  if (failed !== undefined) return say(`I could not read this session's context: ${failed}`);
  const context = ContextSchema.safeParse(contextCall.result);
  if (!context.success) return say(helpAnswer("I could not make sense of this session's context."));
  const { target, label } = context.data.session_meta;
  const snapshot = context.data.target_snapshot;

  const intent = parseBuilderIntent(turn.request);
  if (target.type !== "workflow" && target.type !== "node") return say(helpAnswer(`This session is on ${label ?? `a ${target.type}`}; I can change only workflows and their nodes.`));
  if (!snapshot.exists) return say(helpAnswer(`${label ?? "The target"} does not exist yet, and I cannot design new things: I can only change an existing workflow.`));

  let workflow: Workflow;
  if (target.type === "workflow") {
    const parsed = WorkflowSchema.safeParse(snapshot.value);
    if (!parsed.success) return say(`I could not read workflow "${target.workflowId}" from the session's context.`);
    workflow = parsed.data;
  } else {
    if (!tools.workflowRead) return say(`I need the builder_workflow_read tool to see node "${target.nodeId}" in its workflow, and this server does not offer it.`);
    const read = findCall(turn, "workflowRead", { workflowId: target.workflowId });
    if (!read) return call(tools, [{ key: "workflowRead", args: { workflowId: target.workflowId } }]);
    const parsed = WorkflowReadSchema.safeParse(read.result);
    if (!parsed.success) return say(`I could not read workflow "${target.workflowId}": ${failureOf(read.result) ?? "its answer made no sense to me"}.`);
    workflow = parsed.data.workflow;
  }
  if (!intent) return say(helpAnswer(about(target, workflow)));

  const staged = lastCall(turn, "stage");
  if (!staged) {
    const env: EditEnv = { workflow, target, reads: new TurnReads(turn, tools, workflow.id) };
    const draft = draftChange(intent, env);
    switch (draft.kind) {
      case "need":
        return call(tools, draft.calls);
      case "refuse":
        return say(`${draft.text}\n\n${TAIL}`);
      case "change": {
        const unknownOp = unsupportedOperation(tools, draft.operations);
        if (unknownOp) return say(`This server's builder_change_stage does not take "${unknownOp}" operations, which this change needs. ${TAIL}`);
        return call(tools, [{ key: "stage", args: { summary: draft.summary, operations: draft.operations } }]);
      }
      default: {
        const never: never = draft;
        return never;
      }
    }
  }
  return afterStage(turn, tools, typeof staged.args.summary === "string" ? staged.args.summary : "the change", staged.result);
}

function afterStage(turn: BuilderTurn, tools: OfferedBuilderTools, summary: string, result: unknown): BuilderStep {
  const stageFailed = failureOf(result);
  if (stageFailed !== undefined) return say(`I could not stage "${summary}": ${stageFailed}\n\n${TAIL}`);
  const staged = StagedSchema.safeParse(result);
  if (!staged.success) return say(`I sent "${summary}" to builder_change_stage but could not make sense of its answer.`);
  const { changeSetId, warnings = [] } = staged.data;
  const notes = warnings.length > 0 ? ` ${warnings.join(" ")}` : "";
  if (!tools.validate) return say(`I staged a change: ${summary}.${notes} Review it in the preview and click Apply to save it.`);

  const validated = lastCall(turn, "validate");
  if (!validated) return call(tools, [{ key: "validate", args: { changeSetId } }]);
  const validateFailed = failureOf(validated.result);
  if (validateFailed !== undefined) return say(`I staged "${summary}", but validating it failed: ${validateFailed}`);
  const report = ValidatedSchema.safeParse(validated.result);
  if (!report.success) return say(`I staged "${summary}", but could not make sense of the validation's answer.`);
  if (report.data.valid) return say(`I staged a change: ${summary}.${notes} It passed validation: review it in the preview and click Apply to save it.`);

  if (tools.discard && !lastCall(turn, "discard")) return call(tools, [{ key: "discard", args: { changeSetId } }]);
  const errors = report.data.errors.map((e) => `- ${e.message}${e.hint ? ` (${e.hint})` : ""}`);
  return say([`I staged "${summary}", but it did not pass validation${tools.discard ? ", so I discarded it" : ""}:`, ...errors, "", TAIL].join("\n"));
}

/** One line about the session's target, for the help answer. */
function about(target: EditEnv["target"], workflow: Workflow): string {
  if (target.type === "node") {
    const node = workflow.nodes.find((n) => n.id === target.nodeId);
    return `This session is on node "${target.nodeId}"${node ? ` (${node.type})` : ""} of workflow "${workflow.id}".`;
  }
  const ids = workflow.nodes.map((n) => n.id);
  const shown = ids.length > 12 ? `${ids.slice(0, 12).join(", ")}, …` : ids.join(", ");
  return `This session is on workflow "${workflow.id}" (${workflow.name}): ${ids.length} node${ids.length === 1 ? "" : "s"} (${shown}) and ${workflow.edges.length} edge${workflow.edges.length === 1 ? "" : "s"}.`;
}

function unsupportedOperation(tools: OfferedBuilderTools, operations: readonly Record<string, unknown>[]): string | undefined {
  const schema = StageParametersSchema.safeParse(tools.stage?.parameters);
  if (!schema.success) return undefined;
  const allowed = new Set(schema.data.properties.operations.items.properties.op.enum);
  return operations.map((o) => String(o.op)).find((op) => !allowed.has(op));
}

function call(tools: OfferedBuilderTools, calls: readonly PlannedCall[]): BuilderStep {
  return { kind: "call", calls: calls.map((c) => ({ name: tools[c.key]?.name ?? c.key, args: c.args })) };
}

function say(text: string): BuilderStep {
  return { kind: "say", text };
}
