import type { BuilderIssue, NodeCatalog } from "@weft/types";
import type { WorkflowValidator } from "../../workflows/workflow-validator.ts";
import type { OverlayEntry } from "../domain/change-set.ts";
import type { SessionRecord } from "../domain/records.ts";
import type { EffectiveView } from "../overlay/effective-view.ts";

/** What one validation stage found. */
export interface Findings {
  errors: BuilderIssue[];
  warnings: BuilderIssue[];
}

/** Everything a validation stage may look at: the change's entries and the effective view they make. */
export interface ValidationContext {
  session: Pick<SessionRecord, "target" | "scope" | "mode">;
  entries: readonly OverlayEntry[];
  /** The stored baseline with `entries` over it. */
  view: EffectiveView;
  catalog: NodeCatalog;
  validator: WorkflowValidator;
  llmProfileExists(id: string): Promise<boolean>;
}

export function findings(): Findings {
  return { errors: [], warnings: [] };
}
