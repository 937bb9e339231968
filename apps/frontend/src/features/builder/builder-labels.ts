import type { BuilderChangeSet, PaneMessage } from "@weft/types";

/** What a Builder tool call does, in the words of the conversation pane: [done, while running]. */
const TOOL_LABELS: Record<string, [string, string]> = {
  "builder.context.get": ["read the context", "reading the context"],
  "builder.objects.list": ["listed objects", "listing objects"],
  "builder.workflow.read": ["read a workflow", "reading a workflow"],
  "builder.node.read": ["read a node", "reading a node"],
  "builder.agent.read": ["read an agent", "reading an agent"],
  "builder.scene.read": ["read a scene", "reading a scene"],
  "builder.asset.read": ["read an asset", "reading an asset"],
  "builder.refs.find": ["looked up references", "looking up references"],
  "builder.catalog.list": ["looked up node types", "looking up node types"],
  "builder.change.stage": ["staged a change", "staging a change"],
  "builder.change.validate": ["validated the change", "validating the change"],
  "builder.change.discard": ["discarded the change", "discarding the change"],
  "builder.change.apply": ["tried to apply (only you can)", "trying to apply"],
};

/** Tool names on the wire use `_` for `.`. */
const labelsOf = (name: string) => TOOL_LABELS[name.replaceAll("_", ".")];

export function toolLabel(name: string): string {
  return labelsOf(name)?.[0] ?? name;
}

function toolRunningLabel(name: string): string {
  return labelsOf(name)?.[1] ?? `running ${name}`;
}

/** One line on what the model is doing now, from the last conversation entry of the running turn. */
export function liveStatus(messages: readonly PaneMessage[]): string {
  const last = messages.at(-1);
  if (!last) return "thinking";
  switch (last.kind) {
    case "repair_request":
      return "repairing the change it staged";
    case "assistant": {
      const running = last.toolCalls.find((c) => c.ok === null);
      if (running) return toolRunningLabel(running.name);
      const done = last.toolCalls.at(-1);
      return done ? `${toolLabel(done.name)}; thinking` : "thinking";
    }
    case "user":
    case "error":
      return "thinking";
    default: {
      const never: never = last;
      return never;
    }
  }
}

/** The change set's status for its pill. */
export function changeSetStatusLabel(cs: Pick<BuilderChangeSet, "status" | "statusReason">): string {
  switch (cs.status) {
    case "staged":
      return "staged, not validated";
    case "validated":
      return "valid";
    case "rejected":
      return cs.statusReason === "invalid" ? "invalid" : (cs.statusReason ?? "rejected");
    case "superseded":
      return "superseded";
    case "applied":
      return "applied";
    default: {
      const never: never = cs.status;
      return never;
    }
  }
}

/** The number of problems a repair request lists (one `- ` line each). */
export function repairProblemCount(text: string): number {
  return text.split("\n").filter((l) => l.startsWith("- ")).length;
}
