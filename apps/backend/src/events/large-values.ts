import { jsonSizeUpTo } from "@weft/agent-runtime";
import { LARGE_VALUE_FROM_BYTES, LARGE_VALUE_KEY, LARGE_VALUE_PREVIEW_CHARS, type LargeValue, type Observation } from "@weft/types";
import type { RunRecord } from "./run-repository.ts";

/**
 * What a run's answers and events send of large values: a preview and a link (`LargeValue`, `@weft/types`), so a
 * run with a 7 MB output costs its watchers kilobytes until one of them asks for the value. Storage keeps every
 * value whole (and once: `../events/payload-refs.ts`); only the API's answers and the WebSocket's messages are cut.
 */

/** Where a value is: the run's own inputs or outputs (no node), or a node's inputs, outputs or chunks (key: the chunk's index). */
export type ValueSide = "inputs" | "outputs" | "chunks";

/** The route that answers a value whole: `GET /api/runs/:id/value` (docs/api.md). */
export function valueHref(runId: string, side: ValueSide, key: string, nodeId: string | undefined): string {
  const query = new URLSearchParams(nodeId === undefined ? { side, key } : { node: nodeId, side, key });
  return `/api/runs/${encodeURIComponent(runId)}/value?${query.toString()}`;
}

/** The value, or its preview when its JSON is over LARGE_VALUE_FROM_BYTES. */
function previewed(value: unknown, href: () => string): unknown {
  if (jsonSizeUpTo(value, LARGE_VALUE_FROM_BYTES) <= LARGE_VALUE_FROM_BYTES) return value;
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= LARGE_VALUE_FROM_BYTES) return value;
  const text = typeof value === "string";
  const preview: LargeValue = {
    [LARGE_VALUE_KEY]: { bytes: Buffer.byteLength(json), kind: text ? "string" : "json", preview: (text ? value : json).slice(0, LARGE_VALUE_PREVIEW_CHARS), href: href() },
  };
  return preview;
}

/** Each field previewed; the same object when none is large (most records). */
function previewFields(values: Record<string, unknown>, href: (key: string) => string): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(values)) {
    const value = previewed(values[key], () => href(key));
    if (value !== values[key]) (out ??= { ...values })[key] = value;
  }
  return out ?? values;
}

function previewItems(items: unknown[], href: (key: string) => string): unknown[] {
  let out: unknown[] | undefined;
  items.forEach((item, at) => {
    const value = previewed(item, () => href(String(at)));
    if (value !== item) (out ??= [...items])[at] = value;
  });
  return out ?? items;
}

export function previewRun<R extends Pick<RunRecord, "id" | "inputs" | "outputs">>(run: R): R {
  const inputs = previewFields(run.inputs, (key) => valueHref(run.id, "inputs", key, undefined));
  const outputs = previewFields(run.outputs, (key) => valueHref(run.id, "outputs", key, undefined));
  return inputs === run.inputs && outputs === run.outputs ? run : { ...run, inputs, outputs };
}

export function previewObservation(obs: Observation): Observation {
  const href = (side: ValueSide) => (key: string) => valueHref(obs.runId, side, key, obs.nodeId);
  const inputs = previewFields(obs.inputs, href("inputs"));
  const outputs = previewFields(obs.outputs, href("outputs"));
  const chunks = previewItems(obs.chunks, href("chunks"));
  return inputs === obs.inputs && outputs === obs.outputs && chunks === obs.chunks ? obs : { ...obs, inputs, outputs, chunks };
}

/** The run of a node event: its invocation id is `<runId>:<nodeId>` (run ids hold no ":"). */
function runOfInvocation(invocationId: unknown): string | undefined {
  return typeof invocationId === "string" && invocationId.includes(":") ? invocationId.slice(0, invocationId.indexOf(":")) : undefined;
}

/**
 * A stored event's JSON as sent: as it is unless longer than LARGE_VALUE_FROM_BYTES (a length check on the hot path),
 * else with the large values of a run or node event previewed. Other events are sent as they are.
 */
export function previewEventJson(json: string): string {
  if (json.length <= LARGE_VALUE_FROM_BYTES) return json;
  const event = JSON.parse(json) as Record<string, unknown>;
  const fields = (key: "inputs" | "outputs", runId: string, nodeId: string | undefined) => {
    const values = event[key];
    if (typeof values === "object" && values !== null && !Array.isArray(values)) {
      event[key] = previewFields(values as Record<string, unknown>, (port) => valueHref(runId, key, port, nodeId));
    }
  };
  const nodeId = typeof event.nodeId === "string" ? event.nodeId : undefined;
  const nodeRun = runOfInvocation(event.invocationId);
  const runId = typeof event.runId === "string" ? event.runId : undefined;
  switch (event.type) {
    case "run.started":
      if (runId) fields("inputs", runId, undefined);
      break;
    case "run.completed":
    case "run.failed":
      if (runId) fields("outputs", runId, undefined);
      break;
    case "node.started":
      if (nodeRun) fields("inputs", nodeRun, nodeId);
      break;
    case "node.completed":
      if (nodeRun) {
        fields("inputs", nodeRun, nodeId);
        fields("outputs", nodeRun, nodeId);
      }
      break;
    case "node.chunk":
      if (nodeRun) event.chunk = previewed(event.chunk, () => valueHref(nodeRun, "chunks", String(event.index), nodeId));
      break;
    default:
      return json;
  }
  return JSON.stringify(event);
}

/** A value of a run's answer (`GET /api/runs/:id`, values whole), as `valueHref` names it; undefined when there is none. */
export function valueOf(answer: { run: RunRecord; observations: readonly Observation[] }, side: ValueSide, key: string, nodeId: string | undefined): { value: unknown } | undefined {
  if (nodeId === undefined) {
    if (side === "chunks") return undefined;
    const values = answer.run[side];
    return Object.hasOwn(values, key) ? { value: values[key] } : undefined;
  }
  const obs = answer.observations.findLast((o) => o.nodeId === nodeId);
  if (!obs) return undefined;
  switch (side) {
    case "inputs":
    case "outputs":
      return Object.hasOwn(obs[side], key) ? { value: obs[side][key] } : undefined;
    case "chunks": {
      const at = Number(key);
      return Number.isInteger(at) && at >= 0 && at < obs.chunks.length ? { value: obs.chunks[at] } : undefined;
    }
    default: {
      const never: never = side;
      return never;
    }
  }
}
