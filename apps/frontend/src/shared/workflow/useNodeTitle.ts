import type { WorkflowNode } from "@weft/types";
import { calledSkillId } from "../graph/skill-entries.ts";
import { useNodesStore } from "./nodes-store.ts";
import { useWorkflowsStore } from "./workflows-store.ts";

/**
 * How the editor names a node to the user: its own label, else what it is — the skill it calls by
 * that skill's name, else its type's title. Ids and type names are for the API, not for people.
 */
export function useNodeTitle() {
  const nodes = useNodesStore();
  const workflows = useWorkflowsStore();
  /** What the node is: the called skill's name, or the type's title. */
  function kindTitle(node: WorkflowNode): string {
    const skillId = calledSkillId(node);
    const skill = skillId ? workflows.summaries.find((s) => s.id === skillId) : undefined;
    return skill?.name ?? nodes.lookup(node.type)?.title ?? node.type;
  }
  const titleOf = (node: WorkflowNode): string => node.label || kindTitle(node);
  return { kindTitle, titleOf };
}
