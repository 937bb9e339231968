import type { ConversationMode, RunContext } from "@weft/types";

/**
 * The plain-text shells of seed 000 §5: machine-parseable, and readable when debugging.
 * Lines without a value are left out.
 */

const line = (key: string, value: string | boolean | undefined) => (value === undefined || value === "" ? [] : [`- ${key}: ${value}`]);

export function formatRunDirective(run: RunContext): string {
  return [
    "RUN_DIRECTIVE",
    ...line("runType", run.runType),
    ...line("intent", run.intent),
    ...line("workflow", run.workflow),
    ...line("runId", run.runId),
    ...line("state", run.state),
    ...line("graph", run.graph),
    ...line("artifactsRoot", run.artifactsRoot),
    ...line("currentNodeId", run.currentNodeId ?? run.node?.currentNodeId),
    ...line("effectiveAgentId", run.effectiveAgentId),
    ...line("autopilot", run.autopilot),
  ].join("\n");
}

export function formatNodeBrief(node: NonNullable<RunContext["node"]>): string {
  const out = ["NODE_BRIEF", ...line("currentNodeId", node.currentNodeId), ...line("stepFile", node.stepFile)];
  if (node.outputsMap.length > 0) out.push("- outputsMap:", ...node.outputsMap.map((o) => `  - ${o.from} -> ${o.to}`));
  if (node.allowedNext.length > 0) out.push("- allowedNext:", ...node.allowedNext.map((n) => `  - ${n.nodeId}${n.label ? ` (label=${n.label})` : ""}`));
  return out.join("\n");
}

/** A user's answer; in run mode bound to the node that asked (`forNodeId`). */
export function formatUserInput(text: string, forNodeId?: string): string {
  return ["USER_INPUT", ...line("forNodeId", forNodeId), text].join("\n");
}

export function formatModeBanner(mode: ConversationMode): string {
  return `MODE\n- active: ${mode}\n- note: history may include other modes; follow current instructions.`;
}
