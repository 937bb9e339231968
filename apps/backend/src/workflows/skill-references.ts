import { SKILL_NODE_TYPE, type ValidationIssue } from "@weft/types";
import type { WorkflowValidator } from "./workflow-validator.ts";

/** Node types that call a saved workflow named by `config.workflowId`. */
export const SKILL_CALLING_TYPES: readonly string[] = [SKILL_NODE_TYPE, "core:map"];

export interface SkillReference {
  nodeId: string;
  workflowId: string;
}

/**
 * The skills a workflow document calls, read leniently: the document may be invalid in other ways,
 * and its missing skills are still worth naming next to the rest.
 */
export function skillReferences(doc: unknown): SkillReference[] {
  const nodes = (doc as { nodes?: unknown } | null)?.nodes;
  if (!Array.isArray(nodes)) return [];
  const found: SkillReference[] = [];
  for (const node of nodes as { id?: unknown; type?: unknown; config?: { workflowId?: unknown } }[]) {
    const workflowId = node?.config?.workflowId;
    if (typeof node?.id === "string" && typeof node.type === "string" && SKILL_CALLING_TYPES.includes(node.type) && typeof workflowId === "string" && workflowId) {
      found.push({ nodeId: node.id, workflowId });
    }
  }
  return found;
}

/** One issue per node that calls a skill no saved workflow has the id of (else it fails only when run). */
export function missingSkillIssues(doc: unknown, exists: (workflowId: string) => boolean): ValidationIssue[] {
  return skillReferences(doc)
    .filter((ref) => !exists(ref.workflowId))
    .map((ref) => ({
      code: "SKILL_NOT_FOUND",
      nodeId: ref.nodeId,
      message: `calls the skill "${ref.workflowId}", but no saved workflow has that id (it was deleted or renamed)`,
      hint: `point config.workflowId of "${ref.nodeId}" at an existing skill, or remove the node`,
    }));
}

/** The engine's check plus the one only storage can answer: does every called skill exist? */
export function withSkillCheck(validator: WorkflowValidator, exists: (workflowId: string) => boolean): WorkflowValidator {
  return {
    validate(workflow) {
      const result = validator.validate(workflow);
      const missing = missingSkillIssues(workflow, exists);
      if (missing.length === 0) return result;
      return { ok: false, issues: [...(result.ok ? [] : result.issues), ...missing] };
    },
  };
}
