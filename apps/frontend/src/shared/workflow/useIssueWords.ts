import type { ValidationIssue, Workflow } from "@weft/types";
import { issueInWords, type IssueInWords } from "../graph/issue-words.ts";
import { useNodesStore } from "./nodes-store.ts";
import { useNodeTitle } from "./useNodeTitle.ts";

/** Validation issues in the user's words (the API keeps its codes; the editor says them with node titles). */
export function useIssueWords() {
  const nodes = useNodesStore();
  const { titleOf } = useNodeTitle();
  return (issue: ValidationIssue, doc: Workflow): IssueInWords => issueInWords(issue, doc, titleOf, nodes.lookup);
}
