import { createHash } from "node:crypto";
import { stableJson, WorkflowSchema, type Workflow } from "@weft/types";

/** How many snapshot digests are remembered (32 bytes each); past it the set starts over. */
const REMEMBERED = 512;
/** Digests of snapshot texts that read back through WorkflowSchema unchanged. */
const checked = new Set<string>();

/**
 * A run's stored workflow snapshot (the runs table's `workflow` column) read back: undefined for "null" (not kept),
 * otherwise checked against WorkflowSchema. A run's snapshot never changes and a fork, a rerun and every poll of
 * `GET /api/runs/:id` read the same one (a 1,000-node graph is ~10 ms of schema checks), so a text that came back
 * through the schema unchanged (no key dropped, no default added; key order aside) is remembered by its SHA-256: the
 * same text again needs only JSON.parse, and gives what the schema would.
 */
export function parseRunWorkflow(text: string): Workflow | undefined {
  const raw: unknown = JSON.parse(text);
  if (raw === null) return undefined;
  const digest = createHash("sha256").update(text).digest("base64");
  if (checked.has(digest)) return raw as Workflow;
  const workflow = WorkflowSchema.parse(raw);
  // Stored snapshots put their keys in the order validation made them, not the schema's: compared sorted.
  if (stableJson(workflow) === stableJson(raw)) {
    if (checked.size >= REMEMBERED) checked.clear();
    checked.add(digest);
  }
  return workflow;
}
