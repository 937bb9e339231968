import type { Logger } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { EventJournal } from "../events/event-journal.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { TableEngine } from "../storage/table.ts";
import type { UsageRepository } from "../usage/usage-repository.ts";
import type { LlmService, NodeCatalog, WorkflowSource } from "@weft/types";
import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { agentCasePort } from "./agent-case-runs.ts";
import { AgentCases } from "./agent-cases.ts";
import { caseRunPort } from "./eval-case-runs.ts";
import { llmJudge } from "./eval-judge.ts";
import { EvalRepository } from "./eval-repository.ts";
import { EvalService } from "./eval-service.ts";
import { evalsApi } from "./evals-api.ts";

export { EVAL_MIGRATIONS } from "./eval-migrations.ts";
export { EvalService } from "./eval-service.ts";

export interface EvalsDeps {
  engine: TableEngine;
  storage: RunsStorage;
  runs: RunService;
  hub: EventHub;
  journal: EventJournal;
  usage: UsageRepository;
  llm: LlmService;
  /** Agent suites: their cases run as conversations on this host (absent: agent suites are refused). */
  agents?: { host: AgentHost; storage: AgentsStorage; catalog: NodeCatalog; workflows: WorkflowSource };
  /** Case runs at a time per eval run unless its request says (default 4). */
  concurrency?: number;
  maxBodyBytes: number;
  log: Logger;
}

/** Eval suites: the service (runs cases as ordinary runs, judges with the LLM service) and its routes. */
export function createEvals(deps: EvalsDeps) {
  const service = new EvalService({
    repo: new EvalRepository(deps.engine),
    workflows: deps.storage.workflows,
    runs: deps.storage.runs,
    journal: deps.journal,
    port: caseRunPort({ runs: deps.runs, storage: deps.storage, hub: deps.hub, usage: deps.usage }),
    ...(deps.agents
      ? {
          agents: new AgentCases({
            storage: deps.agents.storage,
            port: agentCasePort({ agents: deps.agents.host, hub: deps.hub, usage: deps.usage }),
            catalog: deps.agents.catalog,
            workflows: deps.agents.workflows,
          }),
        }
      : {}),
    judgeFor: (userId) => llmJudge(deps.llm, userId),
    defaultConcurrency: deps.concurrency ?? 4,
    log: deps.log,
  });
  return { service, api: evalsApi(service, deps.maxBodyBytes) };
}
