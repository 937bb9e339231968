import type { Observation, RunEvent } from "@weft/types";
import type { EventJournal } from "../event-journal.ts";
import { ObservationTracker } from "../observation-tracker.ts";

/** A long agent prompt and chat history: values big enough to be stored once as payloads. */
export const system = `You are a villager. ${"Act through the tools you are given. ".repeat(40)}`;
export const history = (n: number) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `Message ${i}: ${"a fairly long line of chat ".repeat(12)}` }));

/**
 * What the journal stores for one agent step: the run, its input node and its LLM node carry the same prompt and
 * history. The run's observations as ExternalRunRecorder's tracker makes them while it runs are returned.
 */
export function step(journal: EventJournal, runId: string, messages: unknown[]): Observation[] {
  const inputs = { system, messages };
  const observed: Observation[] = [];
  const tracker = new ObservationTracker(runId, (ord, observation) => {
    observed[ord] = observation;
    journal.addObservation(ord, observation);
  });
  const append = (event: unknown) => tracker.onEvent(journal.append(runId, event as RunEvent));
  journal.openNew(runId);
  append({ type: "run.started", runId, workflowId: "agent-deliberation", nodeCount: 2, inputs });
  append({ type: "node.started", nodeId: "in", invocationId: `${runId}:in`, nodeType: "core:workflow-input", inputs, attempt: 1 });
  append({ type: "node.completed", nodeId: "in", invocationId: `${runId}:in`, outputs: inputs, durationMs: 1, cached: false });
  append({ type: "node.started", nodeId: "llm", invocationId: `${runId}:llm`, nodeType: "llm:chat", inputs, attempt: 1 });
  append({ type: "node.chunk", nodeId: "llm", invocationId: `${runId}:llm`, index: 0, chunk: "o" });
  append({ type: "node.completed", nodeId: "llm", invocationId: `${runId}:llm`, outputs: { text: "ok" }, durationMs: 1, cached: false });
  return observed;
}
