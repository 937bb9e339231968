import { context } from "@opentelemetry/api";
import { newRunId } from "./run-id.ts";
import {
  createLogger,
  engineError,
  formatIssue,
  type Logger,
  type NodeCatalog,
  type NodeDefinition,
  type NodeError,
  type NodeServices,
  type NodeValues,
  type Observation,
  type RunResult,
  type RunWait,
  type ValidationIssue,
  type Workflow,
} from "@weft/types";
import { compileGraph, type CompileResult } from "./compile-graph.ts";
import { downstreamOf } from "./compiled-graph.ts";
import type { EngineOptions, RunOptions } from "./engine-options.ts";
import type { RecordedNode } from "./recorded.ts";
import { LruOutputCache, type OutputCache } from "./cache/index.ts";
import { GraphRun } from "./graph-run.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./output-size.ts";
import { isFrozenWorkflow } from "./frozen-workflow.ts";
import { pinnedCopyOf, pinnedDefinition } from "./pinned.ts";
import { bindInterfaceInputs } from "./interface-inputs.ts";
import { RunEventEmitter } from "./run-event-emitter.ts";
import { RunScope, type SubworkflowRunner } from "./run-scope.ts";
import { parseWorkflowDocument } from "./schema-issues.ts";
import { singleNodeWorkflow } from "./single-node-workflow.ts";
import { createSubworkflowRunner, type CheckedWorkflow } from "./subworkflow.ts";
import { endGraphSpan, startGraphSpan } from "./run-span.ts";
import type { Tracing } from "../tracing/index.ts";

/** Asynchronous nodes one graph runs at once by default: enough to overlap I/O-bound calls (LLM, HTTP) without flooding a provider. */
const DEFAULT_CONCURRENCY = 8;
/** How long a cancelled run waits by default for nodes told to stop: long enough for a well-behaved node to clean up, short enough that Cancel feels immediate. */
const DEFAULT_CANCEL_GRACE_MS = 2000;

export type ValidationResult = { ok: true; workflow: Workflow } | { ok: false; issues: ValidationIssue[] };

function invalidWorkflowError(issues: ValidationIssue[]): NodeError {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  return engineError("INVALID_WORKFLOW", `the workflow has ${count}; the first: ${formatIssue(issues[0])}`, { issues });
}

/**
 * Compiled graphs of frozen workflows (`freezeWorkflow`), with the catalog's definition of each node type they use when
 * compiled: shared by every engine (the server builds an engine per run, so one engine's own map never hit), and
 * compiled again when an engine's catalog gives another definition for a node.
 */
const frozenGraphs = new WeakMap<Workflow, { result: CompileResult; types: Map<string, NodeDefinition | undefined> }>();

/** The catalog's definition of each node type the workflow uses: a run checks these, not each node (a workflow of 100,000 nodes may use three types). */
function typesOf(workflow: Workflow, catalog: NodeCatalog): Map<string, NodeDefinition | undefined> {
  const types = new Map<string, NodeDefinition | undefined>();
  for (const node of workflow.nodes) if (!types.has(node.type)) types.set(node.type, catalog.get(node.type));
  return types;
}

function sameDefinitions(types: Map<string, NodeDefinition | undefined>, catalog: NodeCatalog): boolean {
  for (const [type, def] of types) if (catalog.get(type) !== def) return false;
  return true;
}

/**
 * Validates and runs workflows. One code path runs everything: saved workflows, skills inside them
 * (`core:skill`) and single nodes called as tools (`singleNodeWorkflow`).
 */
export class ExecutionEngine {
  private readonly catalog: NodeCatalog;
  private readonly services: NodeServices;
  private readonly cache: OutputCache;
  private readonly concurrency: number;
  private readonly graceMs: number;
  private readonly maxOutputBytes: number;
  private readonly logger: Logger;
  private readonly subworkflows: SubworkflowRunner;
  /** The tracing runs of this engine are traced with (agents trace their steps and tool calls with it too); undefined when off. */
  readonly tracing: Tracing | undefined;

  constructor(options: EngineOptions) {
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    this.catalog = options.catalog;
    this.services = options.services ?? {};
    this.cache = options.cache ?? new LruOutputCache();
    this.concurrency = concurrency;
    this.graceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 1) throw new RangeError(`maxOutputBytes must be a positive integer, got ${maxOutputBytes}`);
    this.maxOutputBytes = maxOutputBytes;
    this.logger = options.logger ?? createLogger("engine");
    this.tracing = options.tracing;
    this.subworkflows = createSubworkflowRunner(
      options.workflows,
      (doc) => this.check(doc),
      (nodeType, params) => singleNodeWorkflow(this.catalog, nodeType, params),
    );
  }

  /** Checks a workflow document (schema and graph) and reports every problem at once. */
  validate(workflow: unknown): ValidationResult {
    const checked = this.check(workflow);
    return checked.ok ? { ok: true, workflow: checked.workflow } : { ok: false, issues: checked.issues };
  }

  private check(doc: unknown): CheckedWorkflow {
    const parsed = parseWorkflowDocument(doc);
    const skeleton: Workflow = parsed.workflow ?? { id: "", name: "", description: "", revision: 0, nodes: parsed.nodes, edges: parsed.edges, annotations: [], tags: [] };
    const compiled = compileGraph(skeleton, this.catalog, parsed.malformedNodeIds);
    const issues = [...parsed.issues, ...compiled.issues];
    if (issues.length === 0 && parsed.workflow && compiled.graph) return { ok: true, workflow: parsed.workflow, graph: compiled.graph };
    return { ok: false, issues };
  }

  /**
   * The graph `run` runs: compiled each time, or once for a workflow frozen by `freezeWorkflow` (and a `pinOutputs`
   * copy of one runs on that graph, its pinned node's definition swapped).
   */
  private compileForRun(workflow: Workflow): CompileResult {
    const pin = pinnedCopyOf(workflow);
    if (pin) {
      const base = this.compileForRun(pin.base);
      const i = base.graph?.indexOf.get(pin.nodeId);
      const node = i === undefined ? undefined : workflow.nodes[i];
      if (base.graph && i !== undefined && node?.pinned !== undefined) {
        // As compileGraph treats a pinned node: its pinned outputs handed on, never cached as what it computes.
        const defs = base.graph.defs.slice();
        defs[i] = pinnedDefinition(defs[i].spec, node.pinned);
        const cacheable = base.graph.cacheable.slice();
        cacheable[i] = 0;
        return { graph: { ...base.graph, workflow, defs, cacheable, runs: 0 }, issues: base.issues };
      }
      return this.compile(workflow);
    }
    if (!isFrozenWorkflow(workflow)) return this.compile(workflow);
    // A frozen workflow cannot change; its graph holds while every node type resolves to the same definition.
    const kept = frozenGraphs.get(workflow);
    if (kept && sameDefinitions(kept.types, this.catalog)) return kept.result;
    const result = this.compile(workflow);
    frozenGraphs.set(workflow, { result, types: typesOf(workflow, this.catalog) });
    return result;
  }

  /**
   * `run` takes a typed Workflow and checks its graph without re-parsing the document (the schema
   * is checked where documents come in: `validate`, the API, the CLI). Something that is not
   * shaped like a workflow at all falls back to the full check, so its problems are still named.
   */
  private compile(workflow: Workflow): CompileResult {
    const shaped = workflow !== null && typeof workflow === "object" && Array.isArray(workflow.nodes) && (workflow.edges === undefined || Array.isArray(workflow.edges));
    if (shaped) {
      try {
        return compileGraph(workflow, this.catalog);
      } catch {
        // A malformed node or edge deep inside: the schema check below names it.
      }
    }
    const checked = this.check(workflow);
    return checked.ok ? { graph: checked.graph, issues: [] } : { issues: checked.issues };
  }

  /** Runs a workflow. Never throws for bad graphs or inputs: they give a failed RunResult. */
  async run(workflow: Workflow, options: RunOptions = {}): Promise<RunResult> {
    const runId = options.runId ?? newRunId();
    const startedAt = Date.now();
    const t0 = performance.now();
    const emitter = new RunEventEmitter(runId, options.onEvent, this.logger);
    const inputs = options.inputs ?? {};
    const workflowId = typeof workflow?.id === "string" ? workflow.id : "";
    if (emitter.enabled) emitter.emit({ type: "run.started", runId, workflowId, nodeCount: Array.isArray(workflow?.nodes) ? workflow.nodes.length : 0, inputs });
    const traced = this.tracing ? startGraphSpan(this.tracing, runId, workflow ?? {}, options.traceParent ?? context.active()) : undefined;

    const end = (status: RunResult["status"], outputs: NodeValues, observations: Observation[], error?: NodeError, waiting?: RunWait[]): RunResult => {
      const durationMs = performance.now() - t0;
      switch (status) {
        case "completed":
          emitter.emit({ type: "run.completed", runId, outputs, durationMs });
          break;
        case "failed":
          emitter.emit({ type: "run.failed", runId, error: error ?? { code: "FAILED", message: "the run failed" }, outputs, durationMs });
          break;
        case "cancelled":
          emitter.emit({ type: "run.cancelled", runId, reason: error?.message ?? "the run was cancelled", durationMs });
          break;
        case "waiting":
          emitter.emit({ type: "run.waiting", runId, waiting: waiting ?? [], durationMs });
          break;
        default: {
          const never: never = status;
          return never;
        }
      }
      emitter.close();
      if (traced) endGraphSpan(traced, status, error);
      this.logger.debug("run ended", { runId, workflowId, status, durationMs });
      return { runId, workflowId, status, outputs, observations, ...(error ? { error } : {}), ...(waiting ? { waiting } : {}), startedAt, durationMs };
    };

    const compiled = this.compileForRun(workflow);
    if (!compiled.graph) return end("failed", {}, [], invalidWorkflowError(compiled.issues));
    const graph = compiled.graph;
    const bound = bindInterfaceInputs(graph, inputs);
    if (!bound.ok) return end("failed", {}, [], bound.error);
    let forced: Uint8Array | undefined;
    if (options.rerunFrom !== undefined) {
      const start = graph.indexOf.get(options.rerunFrom);
      if (start === undefined) {
        return end("failed", {}, [], engineError("INVALID_RERUN_FROM", `rerunFrom names "${options.rerunFrom}", but the workflow has no node with that id`));
      }
      forced = downstreamOf(graph, start);
    }
    let recorded: (RecordedNode | undefined)[] | undefined;
    if (options.recorded !== undefined && options.recorded.size > 0) {
      recorded = new Array<RecordedNode | undefined>(graph.size);
      for (const [nodeId, record] of options.recorded) {
        const i = graph.indexOf.get(nodeId);
        if (i !== undefined) recorded[i] = record;
      }
    }
    const scope = new RunScope(
      runId,
      emitter,
      this.cache,
      { ...this.services, ...options.services },
      this.logger,
      this.concurrency,
      this.graceMs,
      this.maxOutputBytes,
      this.subworkflows,
      this.tracing,
    );
    const outcome = await new GraphRun(scope, graph, {
      prefix: "",
      stack: [workflowId],
      signal: options.signal,
      overrides: bound.overrides,
      forced,
      recorded,
      ...(options.mayPause === true ? { mayPause: true } : {}),
      ...(traced ? { traceParent: traced.context } : {}),
    }).start();
    return end(outcome.status, outcome.outputs, outcome.observations, outcome.error, outcome.waiting);
  }

  /** A workflow of the one node `nodeType` with `params` as its literal inputs; its run outputs are all the node's outputs. */
  singleNodeWorkflow(nodeType: string, params: Record<string, unknown>): Workflow {
    return singleNodeWorkflow(this.catalog, nodeType, params);
  }
}
