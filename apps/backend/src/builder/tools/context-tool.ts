import { z } from "zod";
import { PORT_TYPES, targetObject, VALIDATION_STAGES } from "@weft/types";
import { viewOf } from "../builder-context.ts";
import { CHANGE_OPS } from "../domain/change-set.ts";
import { findReferences } from "../references/references.ts";
import { targetState } from "../overlay/target-state.ts";
import { APPLY_TOOL, defineTool, wireName, type BuilderTool } from "./tool-registry.ts";

/** Seed 001 §6.1 `builder.context.get`: the session's whole situation in one read. */
export function contextTool(toolNames: () => string[]): BuilderTool {
  return defineTool({
    name: "builder.context.get",
    description: "Get this session's context: target and its effective snapshot, scope, references, tools, working copy and revisions. Call it first.",
    args: z.object({}).strict(),
    async run(_args, env) {
      const { session } = env;
      const view = await viewOf(env.ctx, session);
      const target = await targetState(view, session.target);
      const refs = await findReferences(view, targetObject(session.target));
      const latest = session.latestChangeSetId ? await env.ctx.store.getChangeSet(session.latestChangeSetId) : undefined;
      return {
        ok: true,
        session_meta: { sessionId: session.id, target: session.target, mode: session.mode, status: session.status, scope: session.scope, label: session.contextEnvelope.targetLabel },
        domain_profile: { product: "Weft", objectKinds: ["workflow (with nodes and edges)", "agent profile", "scene", "asset (text file)"], portTypes: PORT_TYPES, changeOperations: CHANGE_OPS },
        normative_baseline: {
          validationStages: VALIDATION_STAGES.filter((s) => s !== "revision"),
          writableAssets: "@project/",
          readOnlyAssets: "@pkg/",
          maxRepairRounds: session.maxRepairRounds,
          referencedAssetPaths: session.contextEnvelope.referencedAssetPaths,
        },
        target_snapshot: { exists: target.exists, source: target.source, value: target.snapshot },
        dependency_digest: { inbound: refs.inbound, outbound: refs.outbound },
        tool_capabilities: { tools: toolNames().map(wireName), forbidden: [APPLY_TOOL], appliedBy: "the user, with the Apply button of the workbench" },
        revision_info: {
          storedRevision: target.storedRevision,
          workingCopy: view.entries.map((e) => ({ type: e.type, key: e.key, deleted: e.value === null, base: e.base })),
          latestChangeSet: latest ? { id: latest.id, version: latest.version, status: latest.status, valid: latest.validation?.valid ?? null } : null,
        },
      };
    },
  });
}
