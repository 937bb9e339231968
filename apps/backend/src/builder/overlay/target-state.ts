import type { BuilderTarget } from "@weft/types";
import type { EffectiveView, ReadSource } from "./effective-view.ts";

export interface TargetState {
  exists: boolean;
  /** Where the effective version comes from. */
  source: ReadSource;
  /** The stored revision (assets: SHA-256); null when not stored. */
  storedRevision: number | string | null;
  /** The effective target: the document, the node with its edges, or an asset's facts (never its text: it is read on demand). */
  snapshot: unknown;
}

/** The session's target as the effective view shows it. */
export async function targetState(view: EffectiveView, target: BuilderTarget): Promise<TargetState> {
  switch (target.type) {
    case "workflow":
    case "agent":
    case "scene": {
      const [type, id] =
        target.type === "workflow" ? (["workflow", target.workflowId] as const) : target.type === "agent" ? (["agent", target.agentId] as const) : (["scene", target.sceneId] as const);
      const doc = await view.document(type, id);
      return { exists: doc.value !== undefined, source: doc.source, storedRevision: doc.storedRevision, snapshot: doc.value ?? null };
    }
    case "node": {
      const wf = await view.workflow(target.workflowId);
      const node = wf.value?.nodes.find((n) => n.id === target.nodeId);
      const edges = wf.value?.edges.filter((e) => e.source === target.nodeId || e.target === target.nodeId) ?? [];
      return { exists: node !== undefined, source: wf.source, storedRevision: wf.storedRevision, snapshot: node ? { node, edges } : null };
    }
    case "asset": {
      const stored = await view.assets.state(target.path);
      const effective = await view.asset(target.path);
      const file = effective.state.kind === "file" ? effective.state : undefined;
      return {
        exists: file !== undefined,
        source: effective.source,
        storedRevision: stored.kind === "file" ? stored.sha256 : null,
        snapshot: file ? { path: file.path, sha256: file.sha256, bytes: Buffer.byteLength(file.content, "utf8"), lines: file.content.split("\n").length } : null,
      };
    }
    default: {
      const never: never = target;
      return never;
    }
  }
}
