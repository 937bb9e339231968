import { defineNode, NodeRegistry } from "@weft/nodes";
import { NodeFailure, suspendRun, WorkflowSchema, type RunEvent, type Workflow, type WorkflowInput } from "@weft/types";

/** What the test nodes saw: executions per node id, and the start/finish order of async nodes. */
export interface TestProbe {
  executions: Map<string, number>;
  timeline: string[];
  /** Ids of delay nodes whose timer ran to the end (a cancelled one must not be here). */
  finished: Set<string>;
  /** Ids of nodes whose signal was aborted while they ran. */
  aborted: Set<string>;
  maxConcurrent: number;
}

function count(probe: TestProbe, nodeId: string): void {
  probe.executions.set(nodeId, (probe.executions.get(nodeId) ?? 0) + 1);
}

/**
 * Small node types for engine tests (the engine is tested with its own nodes, not the built-in
 * library), including stand-ins for the interface nodes and `core:skill` with the same contract.
 */
export function createTestCatalog(): { catalog: NodeRegistry; probe: TestProbe } {
  const probe: TestProbe = { executions: new Map(), timeline: [], finished: new Set(), aborted: new Set(), maxConcurrent: 0 };
  let concurrent = 0;
  const catalog = new NodeRegistry();
  catalog.registerAll([
    defineNode({ type: "test:const", title: "Constant", outputs: [{ id: "value", type: "any" }], config: [{ id: "value", kind: "json" }], flags: { idempotent: true } }, (_inputs, ctx) => {
      count(probe, ctx.nodeId);
      return { value: ctx.config.value };
    }),
    defineNode(
      {
        type: "test:add",
        title: "Add",
        inputs: [
          { id: "a", type: "number", required: true },
          { id: "b", type: "number", default: 1 },
        ],
        outputs: [{ id: "sum", type: "number" }],
        flags: { idempotent: true },
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return { sum: (inputs.a as number) + (inputs.b as number) };
      },
    ),
    defineNode(
      { type: "test:upper", title: "Upper", inputs: [{ id: "text", type: "string", required: true }], outputs: [{ id: "text", type: "string" }], flags: { idempotent: true } },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return { text: String(inputs.text).toUpperCase() };
      },
    ),
    defineNode(
      {
        type: "test:join",
        title: "Join",
        inputs: [{ id: "parts", type: "string", multi: true, required: true }],
        outputs: [{ id: "text", type: "string" }],
        config: [{ id: "separator", kind: "text", default: "," }],
        flags: { idempotent: true },
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return { text: (inputs.parts as string[]).join(ctx.config.separator as string) };
      },
    ),
    defineNode(
      {
        type: "test:delay",
        title: "Delay",
        inputs: [
          { id: "value", type: "any" },
          { id: "ms", type: "number", default: 20 },
        ],
        outputs: [{ id: "value", type: "any" }],
        config: [{ id: "ignoreAbort", kind: "boolean", default: false }],
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        probe.timeline.push(`start ${ctx.nodeId}`);
        probe.maxConcurrent = Math.max(probe.maxConcurrent, ++concurrent);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            concurrent--;
            probe.finished.add(ctx.nodeId);
            probe.timeline.push(`end ${ctx.nodeId}`);
            resolve({ value: inputs.value ?? ctx.nodeId });
          }, inputs.ms as number);
          if (ctx.config.ignoreAbort) return;
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            concurrent--;
            probe.aborted.add(ctx.nodeId);
            probe.timeline.push(`abort ${ctx.nodeId}`);
            reject(ctx.signal.reason);
          });
        });
      },
    ),
    defineNode(
      {
        type: "test:fail",
        title: "Fail",
        inputs: [{ id: "value", type: "any" }],
        outputs: [{ id: "value", type: "any" }],
        config: [
          { id: "code", kind: "text" },
          { id: "message", kind: "text", default: "boom" },
        ],
      },
      (_inputs, ctx) => {
        count(probe, ctx.nodeId);
        if (ctx.config.code) throw new NodeFailure(ctx.config.code as string, ctx.config.message as string);
        throw new Error(ctx.config.message as string);
      },
    ),
    defineNode(
      {
        type: "test:flaky",
        title: "Flaky",
        outputs: [{ id: "value", type: "any" }],
        config: [
          { id: "failures", kind: "integer", default: 2 },
          { id: "succeedAfterMs", kind: "integer", default: 0 },
        ],
      },
      async (_inputs, ctx) => {
        count(probe, ctx.nodeId);
        if (probe.executions.get(ctx.nodeId)! <= (ctx.config.failures as number)) throw new NodeFailure("FLAKY", `attempt ${probe.executions.get(ctx.nodeId)} failed`);
        await new Promise((resolve) => setTimeout(resolve, (ctx.config.succeedAfterMs as number | undefined) ?? 0));
        return { value: "ok" };
      },
    ),
    defineNode(
      {
        type: "test:stream",
        title: "Stream",
        inputs: [{ id: "text", type: "string", required: true }],
        outputs: [{ id: "text", type: "string" }],
        flags: { streaming: true },
      },
      async function* (inputs, ctx) {
        count(probe, ctx.nodeId);
        const words = String(inputs.text).split(" ");
        for (const word of words) {
          await new Promise((r) => setTimeout(r, 1));
          yield word;
        }
        return { text: words.join("+") };
      },
    ),
    defineNode(
      {
        type: "test:router",
        title: "Router",
        inputs: [
          { id: "value", type: "any", required: true },
          { id: "condition", type: "boolean", required: true },
        ],
        outputs: [
          { id: "yes", type: "any" },
          { id: "no", type: "any" },
        ],
        flags: { idempotent: true },
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return inputs.condition ? { yes: inputs.value } : { no: inputs.value };
      },
    ),
    defineNode(
      {
        type: "test:collect",
        title: "Collect",
        inputs: [{ id: "items", type: "any", multi: true }],
        outputs: [{ id: "items", type: "array" }],
        flags: { acceptsPartialInputs: true, idempotent: true },
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return { items: inputs.items ?? [] };
      },
    ),
    defineNode(
      {
        type: "test:first",
        title: "First of",
        inputs: [
          { id: "a", type: "any" },
          { id: "b", type: "any" },
          { id: "fallback", type: "any", required: true },
        ],
        outputs: [{ id: "value", type: "any" }],
        flags: { acceptsPartialInputs: true },
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return { value: inputs.a ?? inputs.b ?? inputs.fallback };
      },
    ),
    defineNode({ type: "test:random", title: "Random", outputs: [{ id: "value", type: "number" }] }, (_inputs, ctx) => {
      count(probe, ctx.nodeId);
      return { value: Math.random() };
    }),
    defineNode({ type: "test:nothing", title: "Returns nothing", outputs: [{ id: "value", type: "any" }] }, () => undefined as never),
    defineNode(
      {
        type: "test:pause",
        title: "Pause",
        inputs: [{ id: "value", type: "any" }],
        outputs: [
          { id: "yes", type: "any" },
          { id: "no", type: "any" },
        ],
      },
      (inputs, ctx) => {
        count(probe, ctx.nodeId);
        return suspendRun({ asked: inputs.value ?? null });
      },
    ),
    defineNode(
      {
        type: "core:workflow-input",
        title: "Workflow input",
        inputs: [{ id: "value", type: "any" }],
        outputs: [{ id: "value", type: "any" }],
        config: [{ id: "name", kind: "text", required: true }],
        flags: { idempotent: true },
      },
      (inputs) => (inputs.value === undefined ? {} : { value: inputs.value }),
    ),
    defineNode(
      {
        type: "core:workflow-output",
        title: "Workflow output",
        inputs: [{ id: "value", type: "any", required: true }],
        outputs: [{ id: "value", type: "any" }],
        config: [{ id: "name", kind: "text", required: true }],
        flags: { idempotent: true },
      },
      (inputs) => ({ value: inputs.value }),
    ),
    defineNode({ type: "core:skill", title: "Skill", config: [{ id: "workflowId", kind: "text", required: true }], flags: { dynamicPorts: true } }, async (inputs, ctx) => {
      const result = await ctx.runSubworkflow(ctx.config.workflowId as string, inputs, { signal: ctx.signal });
      if (result.status !== "completed") throw new NodeFailure(result.error?.code ?? "SKILL_FAILED", result.error?.message ?? `skill ${result.status}`);
      return result.outputs;
    }),
  ]);
  return { catalog, probe };
}

/** A workflow from a compact description, with the schema's defaults applied. */
export function workflow(id: string, nodes: WorkflowInput["nodes"], edges: [string, string, string, string][] = []): Workflow {
  return WorkflowSchema.parse({
    id,
    name: id,
    nodes,
    edges: edges.map(([source, sourceHandle, target, targetHandle], i) => ({ id: `e${i}`, source, sourceHandle, target, targetHandle })),
  });
}

/** Collects the events of a run. */
export function eventLog(): { events: RunEvent[]; onEvent: (event: RunEvent) => void; ofType<T extends RunEvent["type"]>(type: T): Extract<RunEvent, { type: T }>[] } {
  const events: RunEvent[] = [];
  return {
    events,
    onEvent: (event) => {
      events.push(event);
    },
    ofType: <T extends RunEvent["type"]>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type),
  };
}
