import { z } from "zod";
import { CHANGE_OPS, StageRequestSchema } from "../domain/change-set.ts";
import { formatBuilderIssue } from "../domain/issues.ts";
import { defineTool, failure, type BuilderTool } from "./tool-registry.ts";

/** The stage tool's parameters as the model sees them: the operations' fields are described, zod checks them fully. */
const STAGE_PARAMETERS = {
  type: "object",
  additionalProperties: false,
  required: ["summary", "operations"],
  properties: {
    summary: { type: "string", description: "One line for the user: what this change does." },
    operations: {
      type: "array",
      minItems: 1,
      description:
        "Applied in order to the working copy. workflow.put {workflow: whole workflow}, workflow.delete {workflowId}, node.put {workflowId, node: whole node, added or replaced by id}, node.remove {workflowId, nodeId} (its edges go too), edge.put {workflowId, edge}, edge.remove {workflowId, edgeId}, agent.put {agent: whole profile}, agent.delete {agentId}, scene.put {scene: whole scene}, scene.delete {sceneId}, asset.put {path: @project/…, content: the whole text}.",
      items: {
        type: "object",
        required: ["op"],
        properties: { op: { type: "string", enum: CHANGE_OPS } },
        additionalProperties: true,
      },
    },
  },
};

const stage = defineTool({
  name: "builder.change.stage",
  description: "Stage a change in this session's working copy (nothing stored changes). Returns the new change set's id; validate it next.",
  args: StageRequestSchema,
  parameters: STAGE_PARAMETERS,
  async run(request, env) {
    const outcome = await env.changeSets.stage(env.session.id, request);
    if (!outcome.ok) {
      return failure(
        "AI_STAGE_REFUSED",
        `Nothing was staged: ${outcome.errors.length} operation${outcome.errors.length === 1 ? "" : "s"} could not be applied.\n${outcome.errors.map(formatBuilderIssue).join("\n")}`,
        "fix the operations and stage again",
        {
          errors: outcome.errors,
        },
      );
    }
    const cs = outcome.changeSet;
    return {
      ok: true,
      changeSetId: cs.id,
      version: cs.version,
      status: cs.status,
      objects: cs.entries.map((e) => ({ type: e.type, key: e.key, deleted: e.value === null })),
      warnings: outcome.notes,
      next: "call builder_change_validate",
    };
  },
});

const validate = defineTool({
  name: "builder.change.validate",
  description: "Validate a staged change set (default: the latest): shape, graph rules, references, scope, asset paths. Errors say how to fix them.",
  args: z.object({ changeSetId: z.string().min(1).optional() }).strict(),
  async run({ changeSetId }, env) {
    const cs = await env.changeSets.validate(env.session.id, changeSetId);
    const report = cs.validation;
    if (!report) return failure("AI_VALIDATION_MISSING", "The change set has no validation result.", "validate again");
    return {
      ok: true,
      changeSetId: cs.id,
      valid: report.valid,
      status: cs.status,
      errors: report.errors,
      warnings: report.warnings,
      meta: report.meta,
      next: report.valid ? "tell the user the change is ready to review and apply" : "fix the errors and stage again",
    };
  },
});

const discard = defineTool({
  name: "builder.change.discard",
  description: "Discard the working copy and its latest change set; reads show the stored objects again.",
  args: z.object({ changeSetId: z.string().min(1).optional() }).strict(),
  async run({ changeSetId }, env) {
    const cs = await env.changeSets.discard(env.session.id, changeSetId);
    return { ok: true, discarded: true, changeSetId: cs.id };
  },
});

export const CHANGE_TOOLS: readonly BuilderTool[] = [stage, validate, discard];
