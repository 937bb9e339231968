import { isWorkflowRunEvent, type RunEvent, type RunEventSink } from "@weft/types";
import { formatDuration, preview } from "./format.ts";

/** How much streamed text one node shows before the rest is only counted. */
const STREAM_PREVIEW_CHARS = 160;

function indentLines(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/** The engine's run error wraps the failed node's message: `node "<id>" failed: …` (engine/run-outcome.ts). */
const RUN_WRAPPER = /^node "([^"]*)" failed: /;

/** A run's error with its failed node named by title, the id after it: `"Parse JSON" (json_parse_1) failed: …`. */
function runErrorInWords(message: string, titleOf: (nodeId: string) => string | undefined): string {
  const wrapped = RUN_WRAPPER.exec(message);
  const title = wrapped && titleOf(wrapped[1]);
  return wrapped && title ? `"${title}" (${wrapped[1]}) failed: ${message.slice(wrapped[0].length)}` : message;
}

/**
 * Live per-node progress for a terminal (stderr): one line when a node starts and one when it ends
 * (completed with timing, cached, failed, skipped), streamed chunks inline on one line per node.
 * Node lines name nodes by id (what the file says); the run's failure names its node by title too
 * (`titleOf`: the node's label or its type's title).
 */
export function createProgressReporter(write: (text: string) => void, titleOf: (nodeId: string) => string | undefined = () => undefined): RunEventSink {
  let openStream: string | undefined;
  let shown = 0;
  const chunkCounts = new Map<string, number>();
  const closeStreamLine = () => {
    if (openStream === undefined) return;
    write("\n");
    openStream = undefined;
  };
  return (event: RunEvent) => {
    // Agent and scene events do not occur in a workflow run.
    if (!isWorkflowRunEvent(event)) return;
    switch (event.type) {
      case "node.chunk": {
        chunkCounts.set(event.invocationId, (chunkCounts.get(event.invocationId) ?? 0) + 1);
        if (openStream !== event.invocationId) {
          closeStreamLine();
          write(`  ⋯ ${event.nodeId}: `);
          openStream = event.invocationId;
          shown = 0;
        }
        if (shown >= STREAM_PREVIEW_CHARS) return;
        const text = (typeof event.chunk === "string" ? event.chunk : `${preview(event.chunk, 40)} `).replace(/\s+/g, " ");
        const room = STREAM_PREVIEW_CHARS - shown;
        write(text.length > room ? `${text.slice(0, room)}…` : text);
        shown += text.length;
        return;
      }
      case "run.started":
        closeStreamLine();
        write(`▶ ${event.workflowId} (${event.nodeCount} node${event.nodeCount === 1 ? "" : "s"})\n`);
        return;
      case "node.started":
        closeStreamLine();
        write(`  … ${event.nodeId} (${event.nodeType})${event.attempt > 1 ? ` attempt ${event.attempt}` : ""}\n`);
        return;
      case "node.retrying":
        closeStreamLine();
        write(`  ↻ ${event.nodeId} [${event.error.code}] ${event.error.message}; retrying in ${formatDuration(event.delayMs)}\n`);
        return;
      case "node.completed": {
        closeStreamLine();
        const chunks = chunkCounts.get(event.invocationId);
        // A node that completed within its call had no "…" line: its type is shown here.
        const type = event.nodeType !== undefined ? ` (${event.nodeType})` : "";
        if (event.cached) write(`  ○ ${event.nodeId} cached\n`);
        else write(`  ✓ ${event.nodeId}${type} ${formatDuration(event.durationMs)}${chunks ? ` · ${chunks} chunk${chunks === 1 ? "" : "s"}` : ""}\n`);
        return;
      }
      case "node.failed":
        closeStreamLine();
        write(`  ✗ ${event.nodeId} [${event.error.code}] ${indentLines(event.error.message, "      ")} (${formatDuration(event.durationMs)})\n`);
        return;
      case "node.skipped":
        closeStreamLine();
        write(`  – ${event.nodeId} skipped: ${event.reason}\n`);
        return;
      case "run.completed":
        closeStreamLine();
        write(`✓ completed in ${formatDuration(event.durationMs)}\n`);
        return;
      case "run.failed":
        closeStreamLine();
        write(`✗ failed after ${formatDuration(event.durationMs)}: [${event.error.code}] ${indentLines(runErrorInWords(event.error.message, titleOf), "    ")}\n`);
        return;
      case "run.cancelled":
        closeStreamLine();
        write(`■ cancelled after ${formatDuration(event.durationMs)}: ${event.reason}\n`);
        return;
      case "run.waiting":
        closeStreamLine();
        write(`⏸ waiting for a decision on ${event.waiting.map((w) => w.nodeId).join(", ")} (answer in the editor's Approvals, or POST /api/approvals/:id/decision)\n`);
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  };
}
