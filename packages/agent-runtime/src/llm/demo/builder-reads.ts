import { z } from "zod";
import { WorkflowNodeSchema, type NodeSpec, type PortSpec, type WorkflowNode } from "@weft/types";
import { CatalogEntrySchema, portsOfNode, specOf, type CatalogEntry } from "./builder-ports.ts";
import { findCall, type BuilderToolKey, type BuilderTurn, type OfferedBuilderTools } from "./builder-turn.ts";

/** A tool call the demo wants to make next (several in one step run in parallel). */
export interface PlannedCall {
  key: BuilderToolKey;
  args: Record<string, unknown>;
}

/** How far a change request got: reads still needed, a refusal in plain words, or the change to stage. */
export type Draft = { kind: "need"; calls: PlannedCall[] } | { kind: "refuse"; text: string } | { kind: "change"; summary: string; operations: Record<string, unknown>[] };

/** One node as `builder_node_read` showed it: the node, its type's spec (absent for an unknown type) and its real ports. */
export interface NodeFacts {
  node: WorkflowNode;
  spec: NodeSpec | undefined;
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
}

const FailureSchema = z.looseObject({ ok: z.literal(false), error: z.looseObject({ message: z.string() }) });
const NodeReadSchema = z.looseObject({ ok: z.literal(true), node: WorkflowNodeSchema, nodeType: z.unknown() });
const CatalogSchema = z.looseObject({ ok: z.literal(true), nodeTypes: z.array(CatalogEntrySchema) });

/** The error message of a failed tool result, or undefined when it did not fail that way. */
export function failureOf(result: unknown): string | undefined {
  const failed = FailureSchema.safeParse(result);
  return failed.success ? failed.data.error.message : undefined;
}

type Got<T> = { ok: true; value: T } | { ok: false; draft: Draft };

/** The reads of this turn, asking for the ones still missing (all of them at once). */
export class TurnReads {
  constructor(
    private readonly turn: BuilderTurn,
    private readonly tools: OfferedBuilderTools,
    private readonly workflowId: string,
  ) {}

  /** The facts of these nodes, and the catalogue's short list when `withCatalog`. */
  nodes(ids: readonly string[], withCatalog = false): Got<{ facts: Map<string, NodeFacts>; catalog: CatalogEntry[] }> {
    const unique = [...new Set(ids)];
    const missingTool = this.missingTool(unique.length > 0 ? "nodeRead" : undefined) ?? this.missingTool(withCatalog ? "catalogList" : undefined);
    if (missingTool) return missingTool;
    const need: PlannedCall[] = [];
    const facts = new Map<string, NodeFacts>();
    for (const nodeId of unique) {
      const args = { workflowId: this.workflowId, nodeId };
      const call = findCall(this.turn, "nodeRead", args);
      if (!call) {
        need.push({ key: "nodeRead", args });
        continue;
      }
      const failed = failureOf(call.result);
      if (failed !== undefined) return refuse(`I could not read node "${nodeId}": ${failed}`);
      const read = NodeReadSchema.safeParse(call.result);
      if (!read.success) return refuse(`I could not make sense of what builder_node_read returned for node "${nodeId}".`);
      const spec = specOf(read.data.nodeType);
      const ports = spec ? portsOfNode(read.data.node, spec) : { inputs: read.data.node.ports?.inputs ?? [], outputs: read.data.node.ports?.outputs ?? [] };
      facts.set(nodeId, { node: read.data.node, spec, ...ports });
    }
    let catalog: CatalogEntry[] = [];
    if (withCatalog) {
      const got = this.catalog({});
      if (got.ok) catalog = got.value;
      else if (got.draft.kind === "need") need.push(...got.draft.calls);
      else return got;
    }
    return need.length > 0 ? { ok: false, draft: { kind: "need", calls: need } } : { ok: true, value: { facts, catalog } };
  }

  /** The full spec of one node type, from the catalogue's detailed answer (or its short list when that was already detailed). */
  nodeType(type: string, listed: readonly CatalogEntry[]): Got<NodeSpec> {
    const inList = specOf(listed.find((e) => e.type === type));
    if (inList) return { ok: true, value: inList };
    const got = this.catalog({ query: type });
    if (!got.ok) return got;
    const spec = specOf(got.value.find((e) => e.type === type));
    return spec ? { ok: true, value: spec } : refuse(`The catalogue did not describe the ports of node type "${type}".`);
  }

  private catalog(args: Record<string, unknown>): Got<CatalogEntry[]> {
    const call = findCall(this.turn, "catalogList", args);
    if (!call) return { ok: false, draft: { kind: "need", calls: [{ key: "catalogList", args }] } };
    const failed = failureOf(call.result);
    if (failed !== undefined) return refuse(`I could not read the node catalogue: ${failed}`);
    const list = CatalogSchema.safeParse(call.result);
    return list.success ? { ok: true, value: list.data.nodeTypes } : refuse("I could not make sense of what builder_catalog_list returned.");
  }

  private missingTool(key: BuilderToolKey | undefined): { ok: false; draft: Draft } | undefined {
    if (!key || this.tools[key]) return undefined;
    return refuse(`I need the ${key === "nodeRead" ? "builder_node_read" : "builder_catalog_list"} tool for this, and this server does not offer it.`);
  }
}

function refuse(text: string): { ok: false; draft: Draft } {
  return { ok: false, draft: { kind: "refuse", text } };
}
