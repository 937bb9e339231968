import type { z } from "zod";
import { NodeFailure, type NodeContext, type ToolCallContext, type ToolName, type ToolResult } from "@weft/types";

/**
 * Calls the run's tool host (the sandboxed file and shell tools). Inputs left unset are not sent,
 * so the tool's own defaults apply. Without a tool host the node cannot run: that is a NodeFailure
 * `MISSING_SERVICE` saying where it can.
 */
export async function callToolHost(ctx: NodeContext, nodeType: string, tool: ToolName, inputs: Record<string, unknown>, extra: Pick<ToolCallContext, "onProgress"> = {}): Promise<ToolResult> {
  const host = ctx.services.toolHost;
  if (!host) {
    throw new NodeFailure(
      "MISSING_SERVICE",
      `${nodeType} needs the tool host (ctx.services.toolHost), which the server provides with the @project/, @pkg/ and @state/ folders configured. Run it from the editor or an agent on the server.`,
      { service: "toolHost" },
    );
  }
  const args = Object.fromEntries(Object.entries(inputs).filter(([, value]) => value !== undefined && value !== null));
  return host.call(tool, args, { runId: ctx.runId, signal: ctx.signal, ...extra });
}

/**
 * Runs a tool call, yielding each progress report it gives as it comes (a streaming node's chunks),
 * and returns its result: `yield* streamProgress((onProgress) => callToolHost(…, { onProgress }))`.
 */
export async function* streamProgress<T>(call: (onProgress: (progress: Record<string, unknown>) => void) => Promise<T>): AsyncGenerator<Record<string, unknown>, T> {
  const progress: Record<string, unknown>[] = [];
  let wake: (() => void) | undefined;
  let settled: { result: T } | { error: unknown } | undefined;
  void call((report) => {
    progress.push(report);
    wake?.();
  })
    .then(
      (result) => (settled = { result }),
      (error: unknown) => (settled = { error }),
    )
    .finally(() => wake?.());
  while (settled === undefined) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (progress.length > 0 || settled !== undefined) resolve();
    });
    yield* progress.splice(0);
  }
  if ("error" in settled) throw settled.error;
  return settled.result;
}

/**
 * The outputs every tool node gives: the whole result and whether it succeeded, plus `fields`
 * taken from a successful result (checked against the tool's result schema). A failed call is not
 * a node failure: the result, with its error code, is what a workflow or agent reacts to.
 */
export function toolOutputs<S extends z.ZodType>(result: ToolResult, schema: S, fields: (ok: z.output<S>) => Record<string, unknown>): Record<string, unknown> {
  if (!result.ok) return { result, ok: false };
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    throw new NodeFailure("BAD_TOOL_RESULT", `The tool host returned a result of the wrong shape: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.`);
  }
  return { result, ok: true, ...fields(parsed.data) };
}

export const RESULT_PORT = {
  id: "result",
  type: "json",
  label: "Result",
  description: "The tool's whole result: { ok: true, … } or { ok: false, error: { code, message, details } }.",
} as const;

export const OK_PORT = { id: "ok", type: "boolean", label: "OK", description: "Whether the tool succeeded; when false, `result.error` says why." } as const;
