import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import type { AgentTrigger } from "@weft/types";
import { endThrown, GEN_AI, WEFT, type Tracing } from "../../tracing/index.ts";

/**
 * One scene step — an agent's deliberation for one trigger — as the root span of its own trace (`scene step <scene>`);
 * the agent's loop steps, runs, LLM and tool calls nest under it. A root: a trigger (a timer, an event, a message)
 * is not a part of whatever happened to run before it.
 */
export async function traceSceneStep(tracing: Tracing, scene: { id: string; name: string }, instanceId: string, trigger: AgentTrigger, body: () => Promise<void>): Promise<void> {
  const span = tracing.tracer.startSpan(
    `scene step ${scene.name}`,
    { attributes: { [WEFT.sceneId]: scene.id, [GEN_AI.agentId]: instanceId, "weft.trigger.kind": trigger.kind, "weft.trigger.id": trigger.id } },
    ROOT_CONTEXT,
  );
  try {
    await context.with(trace.setSpan(ROOT_CONTEXT, span), body);
  } catch (error) {
    endThrown(span, error);
    throw error;
  }
  span.end();
}
