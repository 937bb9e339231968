import type { NodeCatalog, ValidationIssue, Workflow, Logger } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import type { RunService } from "../runs/run-service.ts";
import type { LlmProfileService } from "../llm/profile-service.ts";
import type { WorkflowCaches } from "../runs/workflow-caches.ts";
import type { AgentService } from "../agents/agent-service.ts";

export interface WorkflowValidator {
  validate(workflow: unknown): { ok: true; workflow: Workflow } | { ok: false; issues: ValidationIssue[] };
}

/** What the HTTP plugins work with. */
export interface ApiDeps {
  storage: Storage;
  catalog: NodeCatalog;
  validator: WorkflowValidator;
  runs: RunService;
  llmProfiles: LlmProfileService;
  agents: AgentService;
  caches: WorkflowCaches;
  maxBodyBytes: number;
  version: string;
  log: Logger;
}
