import { NodeFailure, type NodeError, type RunResult, messageOf } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { skillFailure } from "./skill.ts";

const ERROR_POLICIES = ["stop", "skip", "collect"] as const;
type ErrorPolicy = (typeof ERROR_POLICIES)[number];

interface ItemError {
  index: number;
  code: string;
  message: string;
}

/** What one item's call gave: the callee's outputs, or why it failed. */
type ItemOutcome = { ok: true; outputs: Record<string, unknown> } | { ok: false; error: NodeError };

function failureOf(error: unknown, target: string): NodeError {
  if (error instanceof NodeFailure) return error.toNodeError();
  return { code: "MAP_ITEM_FAILED", message: `${target} could not run: ${messageOf(error)}` };
}

/**
 * Runs a skill (or a node type) once per item, as sub-runs of this run: each item's nodes appear in
 * the inspector as `<this node>[<index>]/…`, their outputs are cached like any node's (so a re-run
 * after changing one item runs only that item's nodes again), and `concurrency` items run at once.
 */
export const coreMap = defineNode(
  {
    type: "core:map",
    title: "Map",
    description:
      "Runs a skill (a workflow with an interface) or a node type once per item of a list, a few at a time, and gives the results in the order of the items. Each item goes to the input named by Item input; Shared inputs go to every call. On a failure: stop, skip the item, or collect the error.",
    category: "interface",
    config: [
      { id: "workflowId", kind: "text", refersTo: "skill", label: "Skill", description: "The skill to run per item (or set Node type instead)." },
      { id: "nodeType", kind: "text", label: "Node type", description: "A node type to run per item, e.g. core:text-transform (instead of a skill)." },
      { id: "itemInput", kind: "text", default: "item", label: "Item input", description: "The skill's interface input (or the node's input) that gets the item." },
      { id: "concurrency", kind: "integer", default: 4, min: 1, max: 64, label: "At once", description: "How many items run at the same time." },
      {
        id: "onError",
        kind: "select",
        default: "stop",
        options: [...ERROR_POLICIES],
        label: "On error",
        description: "stop: fail at the first failed item; skip: leave failed items out; collect: null in their place.",
      },
    ],
    inputs: [
      { id: "items", type: "array", required: true, label: "Items", description: "The list; each item is one call." },
      { id: "inputs", type: "json", label: "Shared inputs", description: "An object of further inputs given to every call." },
    ],
    outputs: [
      { id: "results", type: "array", label: "Results", description: "Per item, the outputs of its call (an object by output name), in the order of the items." },
      { id: "errors", type: "array", label: "Errors", description: "The failed items: { index, code, message } (skip and collect)." },
    ],
  },
  async (inputs, ctx) => {
    const workflowId = String(ctx.config.workflowId ?? "").trim();
    const nodeType = String(ctx.config.nodeType ?? "").trim();
    if ((workflowId === "") === (nodeType === "")) {
      throw new NodeFailure("INVALID_CONFIG", "core:map runs either a skill or a node type: set exactly one of Skill (workflowId) and Node type (nodeType).", { fields: ["workflowId", "nodeType"] });
    }
    const target = workflowId || nodeType;
    const items = inputs.items as unknown[];
    const shared = inputs.inputs ?? {};
    if (typeof shared !== "object" || Array.isArray(shared))
      throw new NodeFailure("INVALID_INPUT", 'Shared inputs must be an object of input names to values, e.g. {"style": "short"}.', { port: "inputs" });
    const itemInput = String(ctx.config.itemInput);
    const policy = ctx.config.onError as ErrorPolicy;
    const concurrency = Number(ctx.config.concurrency);

    // Stops the calls still running when an item fails under `stop`, and follows the run's cancellation.
    const stop = new AbortController();
    const onAbort = () => stop.abort(ctx.signal.reason);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    const outcomes: ItemOutcome[] = new Array(items.length);
    let firstFailure: { index: number; error: NodeError } | undefined;

    const runItem = async (index: number): Promise<ItemOutcome> => {
      let result: RunResult;
      try {
        result = await ctx.runSubworkflow(target, { ...shared, [itemInput]: items[index] }, { signal: stop.signal, label: String(index), ...(nodeType ? { asNodeType: true } : {}) });
      } catch (error) {
        return { ok: false, error: failureOf(error, target) };
      }
      return result.status === "completed" ? { ok: true, outputs: result.outputs } : { ok: false, error: skillFailure(target, result).toNodeError() };
    };

    let next = 0;
    const worker = async () => {
      while (next < items.length && !stop.signal.aborted) {
        const index = next++;
        const outcome = await runItem(index);
        outcomes[index] = outcome;
        if (!outcome.ok && policy === "stop" && !stop.signal.aborted) {
          firstFailure = { index, error: outcome.error };
          stop.abort();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
    if (ctx.signal.aborted) throw new NodeFailure("CANCELLED", `core:map was cancelled after ${outcomes.filter(Boolean).length} of ${items.length} items.`);
    if (firstFailure) {
      const { index, error } = firstFailure;
      throw new NodeFailure("MAP_ITEM_FAILED", `Item ${index} of ${items.length} failed in ${target}: ${error.message} (set On error to skip or collect to go on past failed items).`, {
        index,
        cause: error,
      });
    }
    const errors: ItemError[] = [];
    const results: unknown[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) results.push(outcome.outputs);
      else {
        errors.push({ index, code: outcome.error.code, message: outcome.error.message });
        if (policy === "collect") results.push(null);
      }
    });
    return { results, errors };
  },
);
