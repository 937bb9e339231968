import { freezeWorkflow, pinOutputs } from "@weft/agent-runtime";
import { WorkflowSchema, type Workflow } from "@weft/types";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { PAYLOAD_REF_KEY, payloadId, type PayloadBlob, type PayloadLoader } from "./payload-refs.ts";

/** A trigger's run snapshot: `{"$weftRunBase": {"$weftPayload": "<id>"}, "pins": {nodeId, outputs}}` (README.md, why). */
const RUN_BASE_KEY = "$weftRunBase";

/** Where such a snapshot starts (JSON.stringify puts the key first): told from any other snapshot without parsing it. */
const BASE_PREFIX = `{"${RUN_BASE_KEY}":`;

const StoredPins = z.object({
  [RUN_BASE_KEY]: z.object({ [PAYLOAD_REF_KEY]: z.string() }),
  pins: z.object({ nodeId: z.string(), outputs: z.record(z.string(), z.unknown()) }),
});

/** Bases' texts by the frozen workflow they were made from (it never changes): each kept revision is serialized once per process. */
const baseTexts = new WeakMap<Workflow, PayloadBlob>();

/** A run's workflow given as a frozen workflow (`freezeWorkflow`: one kept revision) and the outputs pinned on one node. */
export interface PinnedRun {
  base: Workflow;
  nodeId: string;
  outputs: Record<string, unknown>;
}

/** The stored snapshot of a `PinnedRun`: the column's text and the base to store (before the run's row) in `payloads`, under its content id. */
export function pinnedSnapshot(run: PinnedRun): { column: string; base: PayloadBlob } {
  let base = baseTexts.get(run.base);
  if (base === undefined) {
    const json = JSON.stringify(run.base);
    base = { id: payloadId(json), json };
    baseTexts.set(run.base, base);
  }
  return { column: JSON.stringify({ [RUN_BASE_KEY]: { [PAYLOAD_REF_KEY]: base.id }, pins: { nodeId: run.nodeId, outputs: run.outputs } }), base };
}

/** Whether a stored snapshot is a base and pins (`pinnedSnapshot`). */
export function isPinnedSnapshot(text: string): boolean {
  return text.startsWith(BASE_PREFIX);
}

/** Bases kept per process (each a few KB to a few MB; the least recently read go first). */
const KEPT_BASES = 64;

/** Bases read back, checked and frozen, by payload id (content-addressed: never stale), for every reader in the process. */
const bases = new LRUCache<string, Workflow>({ max: KEPT_BASES });

/** A `pinnedSnapshot` read back: the frozen base (checked once per process) with the run's request pinned on its node. */
export async function readPinnedSnapshot(text: string, load: PayloadLoader): Promise<Workflow> {
  const stored = StoredPins.parse(JSON.parse(text));
  const id = stored[RUN_BASE_KEY][PAYLOAD_REF_KEY];
  let base = bases.get(id);
  if (base === undefined) {
    const json = (await load([id])).get(id);
    if (json === undefined) throw new Error(`The run's workflow (payload ${id}) is missing from storage.`);
    base = freezeWorkflow(WorkflowSchema.parse(JSON.parse(json)));
    bases.set(id, base);
  }
  return pinOutputs(base, stored.pins.nodeId, stored.pins.outputs);
}
