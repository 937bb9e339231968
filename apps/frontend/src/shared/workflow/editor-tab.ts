import type { ValidationIssue, Workflow } from "@weft/types";
import type { ApiError } from "../api/errors.ts";

export interface Conflict {
  currentRevision: number;
  current: Workflow;
}

export interface EditorTab {
  /** The workflow id (one tab per workflow); read-only run snapshots use `run:<runId>`. */
  id: string;
  doc: Workflow;
  /** The version last read from or written to the server; null for a workflow not saved yet. */
  saved: Workflow | null;
  saving: boolean;
  saveError: ApiError | null;
  conflict: Conflict | null;
  /** A snapshot of the workflow as a past run ran it, or a built-in workflow: shown, never edited. */
  readonly: boolean;
  /** A built-in workflow (the system runs it): read-only here and refused by the server; "Duplicate to edit" copies it. */
  builtIn?: boolean;
  /** Graph problems the server found (on Run or Validate), shown on the nodes until fixed. */
  issues: ValidationIssue[];
  viewport?: { x: number; y: number; zoom: number };
  /**
   * The id was made from the first name (a new workflow): until it is saved, it follows the name. Running the
   * draft ends that (the runs are stored under the id), so naming it on the first save keeps its runs with it.
   */
  idFromName?: boolean;
}
