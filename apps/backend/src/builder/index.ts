import type { LlmService, Logger, NodeCatalog, ToolHostService } from "@weft/types";
import type { WorkflowValidator } from "../workflows/workflow-validator.ts";
import type { BuilderStorage } from "./builder-storage.ts";
import { builderApi, type BuilderApiDeps } from "./api/builder-api.ts";
import { ApplyOrchestrator } from "./apply/apply-orchestrator.ts";
import type { BuilderContext } from "./builder-context.ts";
import { ChangeSetService } from "./changes/change-set-service.ts";
import { BuilderLlm } from "./session/builder-llm.ts";
import { profileForSession, SessionService } from "./session/session-service.ts";
import { TurnRunner } from "./session/turn-runner.ts";
import { BuilderStore } from "./storage/builder-store.ts";
import { CHANGE_TOOLS } from "./tools/change-tools.ts";
import { contextTool } from "./tools/context-tool.ts";
import { READ_TOOLS } from "./tools/read-tools.ts";
import { BuilderToolbox } from "./tools/tool-registry.ts";

export interface BuilderDeps {
  /** The server's store; the Builder's tables live on its connection, so apply's one transaction spans them and the documents. */
  storage: BuilderStorage;
  catalog: NodeCatalog;
  validator: WorkflowValidator;
  /** The server's LLM service (profiles resolved from the encrypted store, usage recorded, budgets checked). */
  llm: LlmService;
  /** The sandboxed file tools; without them assets cannot be read or changed. */
  toolHost: ToolHostService | undefined;
  maxBodyBytes: number;
  log: Logger;
  /** Model calls allowed for one user message (tool loop and repair rounds together). Default 12. */
  maxModelCalls?: number;
  /** Refuses an apply the request's principal may not make (the composition's agent-id guard). */
  guardApply?: BuilderApiDeps["guardApply"];
  actorOf?: BuilderApiDeps["actorOf"];
}

export interface Builder {
  /** The Elysia plugin with the `/api/builder` routes. */
  api: ReturnType<typeof builderApi>;
}

/** The Builder AI (seed 001): sessions, working copies, semantic tools, validation and manual apply. */
export function createBuilder(deps: BuilderDeps): Builder {
  const ctx: BuilderContext = {
    store: new BuilderStore(deps.storage),
    storage: deps.storage,
    catalog: deps.catalog,
    validator: deps.validator,
    toolHost: deps.toolHost,
    log: deps.log,
  };
  const changeSets = new ChangeSetService(ctx);
  const tools: BuilderToolbox = new BuilderToolbox([contextTool(() => tools.names()), ...READ_TOOLS, ...CHANGE_TOOLS]);
  const turns = new TurnRunner({
    ctx,
    changeSets,
    toolbox: tools,
    llm: new BuilderLlm(deps.llm, deps.storage.redactor, deps.log.child("llm")),
    conversations: deps.storage.conversations,
    profileFor: (session) => profileForSession(deps.storage, session),
    maxModelCalls: deps.maxModelCalls ?? 12,
  });
  const sessions = new SessionService(ctx, changeSets, turns, deps.storage.conversations);
  const apply = new ApplyOrchestrator(ctx, changeSets);
  return {
    api: builderApi({
      ctx,
      sessions,
      changeSets,
      apply,
      conversations: deps.storage.conversations,
      maxBodyBytes: deps.maxBodyBytes,
      ...(deps.guardApply ? { guardApply: deps.guardApply } : {}),
      ...(deps.actorOf ? { actorOf: deps.actorOf } : {}),
    }),
  };
}
