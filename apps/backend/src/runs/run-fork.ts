import type { RecordedNode } from "@weft/agent-runtime";
import type { Observation, Workflow } from "@weft/types";
import type { ForkChanges } from "../events/run-repository.ts";
import { ServiceError } from "../service-error.ts";

/** Where a fork starts and what it changes there (`POST /api/runs/:id/fork`). */
export interface ForkPoint {
  /** The node whose settings or inputs change; it and what depends on it run again. */
  at: string;
  changes: ForkChanges;
}

/** Why a node the fork needs has no recorded output (`details.reason` of the CONFLICT refusal). */
export const NOT_RECORDED = "NOT_RECORDED";

/**
 * The graph a fork runs: the forked run's graph with the changes applied to its node — each setting where the node
 * holds it (its config, or a literal input value when it has that input port and no such config key), input values
 * set as literals (an edge into such a port is removed: an edge would override the literal), outputs pinned on the
 * named nodes; an explicit input wins over a setting of the same name. Refuses (VALIDATION_FAILED) a node the graph does not have.
 */
export function forkWorkflow(source: Workflow, point: ForkPoint): Workflow {
  const { at, changes } = point;
  const ids = new Set(source.nodes.map((n) => n.id));
  const known = () =>
    `its nodes are ${source.nodes
      .slice(0, 10)
      .map((n) => `"${n.id}"`)
      .join(", ")}${ids.size > 10 ? `, … (${ids.size} in all)` : ""}`;
  if (!ids.has(at)) throw unknownNode(["at"], `body.at: the run's workflow has no node "${at}" (${known()}).`);
  for (const pinned of Object.keys(changes.pins ?? {})) {
    if (!ids.has(pinned)) throw unknownNode(["pins", pinned], `body.pins: the run's workflow has no node "${pinned}" (${known()}).`);
  }
  const node = source.nodes.find((n) => n.id === at)!;
  // Most of a node's settings are literal input values (a regex's pattern, a template's text); the rest are its
  // config. A setting goes where the node holds it, so `--set replacement=…` changes what the node uses.
  const settings: Record<string, unknown> = {};
  const heldAsInput: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes.settings ?? {})) {
    const isPort = key in node.inputs || source.edges.some((e) => e.target === at && e.targetHandle === key);
    if (!(key in node.config) && isPort) heldAsInput[key] = value;
    else settings[key] = value;
  }
  const inputs = { ...heldAsInput, ...changes.inputs };
  const nodes = source.nodes.map((n) => {
    const pins = changes.pins?.[n.id];
    if (n.id !== at) return pins === undefined ? n : { ...n, pinned: pins };
    return {
      ...n,
      config: { ...n.config, ...settings },
      inputs: { ...n.inputs, ...inputs },
      ...(pins !== undefined ? { pinned: pins } : {}),
    };
  });
  const edges = source.edges.filter((e) => !(e.target === at && e.targetHandle in inputs));
  return { ...source, nodes, edges };
}

/** The nodes a fork runs: the changed node, the pinned ones, and every node that depends on one of them. */
export function liveNodes(workflow: Workflow, point: ForkPoint): Set<string> {
  const out = new Map<string, string[]>();
  for (const e of workflow.edges) out.set(e.source, [...(out.get(e.source) ?? []), e.target]);
  const live = new Set([point.at, ...Object.keys(point.changes.pins ?? {})]);
  const queue = [...live];
  for (let head = 0; head < queue.length; head++) {
    for (const next of out.get(queue[head]) ?? []) {
      if (!live.has(next)) {
        live.add(next);
        queue.push(next);
      }
    }
  }
  return live;
}

export type RecordedPlan = { ok: true; recorded: Map<string, RecordedNode>; live: Set<string> } | { ok: false; nodeId: string; message: string };

/**
 * What every node that does not run takes from the forked run's observations: its recorded inputs and outputs. A
 * node the live ones depend on must have completed there; one they do not depend on ends skipped if it did not.
 */
export function recordedNodes(workflow: Workflow, point: ForkPoint, sourceRunId: string, observations: readonly Observation[]): RecordedPlan {
  const live = liveNodes(workflow, point);
  const byId = new Map(observations.map((o) => [o.nodeId, o]));
  const needed = upstreamOf(workflow, live);
  const recorded = new Map<string, RecordedNode>();
  for (const node of workflow.nodes) {
    if (live.has(node.id)) continue;
    const obs = byId.get(node.id);
    if (obs?.status === "completed") {
      recorded.set(node.id, { status: "completed", inputs: obs.inputs, outputs: obs.outputs });
      continue;
    }
    const what =
      obs === undefined
        ? "has no record there (it never ran, or retention purged the run's records)"
        : obs.status === "skipped"
          ? `was skipped there (${obs.skipReason ?? "no reason recorded"})`
          : `${obs.status} there`;
    if (needed.has(node.id)) {
      return {
        ok: false,
        nodeId: node.id,
        message:
          `Node "${node.id}" ${what} in run "${sourceRunId}", and the fork at "${point.at}" needs its output. ` +
          `Fork at "${node.id}" instead, or give its outputs in body.pins (e.g. {"pins": {"${node.id}": {"<port>": <value>}}}).`,
      };
    }
    recorded.set(node.id, { status: "skipped", reason: `not run in this fork: it ${what} in run "${sourceRunId}" and nothing changed depends on it` });
  }
  return { ok: true, recorded, live };
}

/** The refusal for a plan that cannot be made. */
export function notRecordedError(plan: Extract<RecordedPlan, { ok: false }>, sourceRunId: string): ServiceError {
  return new ServiceError("CONFLICT", plan.message, { reason: NOT_RECORDED, runId: sourceRunId, nodeId: plan.nodeId });
}

/** Every node some node of `targets` depends on (not `targets` themselves, unless one depends on another). */
function upstreamOf(workflow: Workflow, targets: Set<string>): Set<string> {
  const into = new Map<string, string[]>();
  for (const e of workflow.edges) into.set(e.target, [...(into.get(e.target) ?? []), e.source]);
  const seen = new Set<string>();
  const queue = [...targets];
  for (let head = 0; head < queue.length; head++) {
    for (const prev of into.get(queue[head]) ?? []) {
      if (!seen.has(prev)) {
        seen.add(prev);
        queue.push(prev);
      }
    }
  }
  return seen;
}

function unknownNode(path: string[], message: string): ServiceError {
  return new ServiceError("VALIDATION_FAILED", message, { issues: [{ path, message: "unknown node id", code: "custom" }] });
}
