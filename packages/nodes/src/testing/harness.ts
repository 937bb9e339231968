/**
 * Test helpers for node tests: a real NodeContext (plain values, a recording logger, a real
 * AbortSignal) and a runner that drives `execute` the way the engine does — awaiting outputs, or
 * draining an async generator's chunks and taking its return value.
 */
import { expect } from "vitest";
import { NodeFailure, type Logger, type NodeContext, type NodeDefinition, type NodeServices, type NodeValues, type RunResult, type SubworkflowOptions } from "@weft/types";

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  scope: string;
  message: string;
  fields?: Record<string, unknown>;
}

/** A Logger that keeps every entry in memory, shared with its children. */
export function recordingLogger(scope = "test", entries: LogEntry[] = []): Logger & { entries: LogEntry[] } {
  const at = (level: LogEntry["level"]) => (message: string, fields?: Record<string, unknown>) => {
    entries.push({ level, scope, message, ...(fields ? { fields } : {}) });
  };
  return {
    entries,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (sub) => recordingLogger(`${scope}:${sub}`, entries),
  };
}

export type RunSubworkflow = (workflowId: string, inputs: NodeValues, options?: SubworkflowOptions) => Promise<RunResult>;

export interface ContextOptions {
  config?: Record<string, unknown>;
  signal?: AbortSignal;
  services?: NodeServices;
  nodeId?: string;
  runSubworkflow?: RunSubworkflow;
  log?: Logger;
}

export function testContext(options: ContextOptions = {}): NodeContext {
  return {
    runId: "run-test",
    nodeId: options.nodeId ?? "node-under-test",
    invocationId: "inv-1",
    config: options.config ?? {},
    signal: options.signal ?? new AbortController().signal,
    log: options.log ?? recordingLogger(),
    services: options.services ?? {},
    runSubworkflow:
      options.runSubworkflow ??
      (async (workflowId) => {
        throw new Error(`this test context runs no subworkflow (asked for "${workflowId}")`);
      }),
  };
}

export interface NodeRun {
  outputs: NodeValues;
  chunks: unknown[];
}

function isAsyncIterator(value: unknown): value is AsyncGenerator<unknown, NodeValues, void> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** Runs a node once and returns its outputs and streamed chunks. */
export async function runNodeFull(def: NodeDefinition, inputs: NodeValues = {}, options: ContextOptions = {}): Promise<NodeRun> {
  const result = def.execute(inputs, testContext(options));
  if (!isAsyncIterator(result)) return { outputs: await result, chunks: [] };
  const chunks: unknown[] = [];
  for (;;) {
    const step = await result.next();
    if (step.done) return { outputs: step.value, chunks };
    chunks.push(step.value);
  }
}

/** Runs a node once and returns its outputs. */
export async function runNode(def: NodeDefinition, inputs: NodeValues = {}, config: Record<string, unknown> = {}, options: ContextOptions = {}): Promise<NodeValues> {
  return (await runNodeFull(def, inputs, { ...options, config })).outputs;
}

/** Asserts that the run fails with a NodeFailure of `code`, and returns it for further checks. */
export async function expectFailure(run: Promise<unknown>, code: string): Promise<NodeFailure> {
  const error = await run.then(
    (outputs) => {
      throw new Error(`expected a NodeFailure ${code}, but the node returned ${JSON.stringify(outputs)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NodeFailure);
  expect((error as NodeFailure).code).toBe(code);
  return error as NodeFailure;
}
