import { lockDataDir } from "./storage/data-dir-lock.ts";
import { isAddressInUse, PortInUseError } from "./port-in-use-error.ts";
import { fileURLToPath } from "node:url";
import { createLogger, redactingLogger, SecretRedactor, type Logger, messageOf } from "@weft/types";
import { createRunRuntime, runtimeChoices, type RunRuntime } from "./runtime/run-runtime.ts";
import { openProcessStorage, type Storage } from "./app-storage.ts";
import { EventHub } from "./events/event-hub.ts";
import { EventJournal, type JournalOptions } from "./events/event-journal.ts";
import type { GatewayOptions } from "./events/ws-gateway.ts";
import { RunQueue } from "./runs/run-queue.ts";
import { createRuns } from "./runs/index.ts";
import type { ApiQueueMode } from "./queue/api-queue-mode.ts";
import { composeApiQueue } from "./queue/compose-api-queue.ts";
import { loadExamplesOnce } from "./seed/example-loader.ts";
import { markShippedWorkflows, shippedWorkflows } from "./seed/shipped-workflows.ts";
import { createApi } from "./api/app.ts";
import { composeBuilder } from "./builder/compose-builder.ts";
import { createAgents } from "./agents/index.ts";
import { createScenes, type Scenes } from "./scenes/index.ts";
import { composeAuth } from "./auth/compose-auth.ts";
import { composeWs } from "./auth/compose-ws.ts";
import type { WsRateLimits } from "./auth/ws-access.ts";
import { createWorkflows, withSkillCheck } from "./workflows/index.ts";
import { authorOf } from "./auth/principal.ts";
import { hostingOf } from "./runtime/hosting.ts";
import { mcpApi } from "./mcp-server/mcp-api.ts";
import { openApiApi } from "./api/openapi.ts";
import { createOps, embeddedQueueProbe } from "./ops/index.ts";
import pkg from "../package.json" with { type: "json" };
// The routes of the domains whose factories do not return them, and every domain's OpenAPI description.
import { healthApi } from "./api/health.ts";
import { llmProfilesApi } from "./llm/llm-profiles-api.ts";
import { conversationsApi } from "./agents/conversations-api.ts";
import { createOpenAiCompat, OPENAI_ERRORS } from "./openai-compat/index.ts";
import { createA2a } from "./a2a/index.ts";
import { sceneDocumentsApi } from "./scenes/scene-documents-api.ts";
import { sceneRefusalOf } from "./scenes/scene-errors.ts";
import { permissionsApi } from "./settings/permissions-api.ts";
import { mcpSettingsApi } from "./settings/mcp-settings-api.ts";
import { credentialsApi } from "./credentials/credentials-api.ts";
import { API_ROUTES } from "./api-routes.ts";
import { createTriggers } from "./triggers/index.ts";
import { composeApprovals } from "./approvals/compose-approvals.ts";
import { createEvals } from "./evals/index.ts";
import { createSceneSuites } from "./evals/scene-suites.ts";
import { sceneCaseRuns } from "./scenes/scene-case-runs.ts";

export interface ServerOptions {
  /** Folder of the SQLite file and the generated master key. */
  dataDir: string;
  /** How often the scheduler looks for schedules saved by writers other than the workflow routes (default 10 s; tests lengthen it). */
  scheduleSyncMs?: number;
  /** `postgres://…` (WEFT_DATABASE_URL): store everything in PostgreSQL instead of `<dataDir>/weft.sqlite`. */
  databaseUrl?: string;
  /** WEFT_DB_POOL_SIZE: PostgreSQL connections in this process's pool (default 10). */
  dbPoolSize?: number;
  /** WEFT_REDIS_URL: queue mode — runs go to BullMQ for `weft worker` processes; events and cancels travel through Redis. */
  redisUrl?: string;
  /** 0 picks a free port. Default 3000. */
  port?: number;
  /** Default 127.0.0.1. Another address exposes Weft beyond this machine: see allowedHosts. */
  hostname?: string;
  /** The access token (WEFT_AUTH_TOKEN); otherwise `<dataDir>/access-token`, generated on first start. */
  authToken?: string;
  /** Host names besides loopback ones and `hostname` that requests may name (WEFT_ALLOWED_HOSTS). */
  allowedHosts?: string[];
  /** Origins besides Weft's own whose pages may call the API (WEFT_ALLOWED_ORIGINS). */
  allowedOrigins?: string[];
  /** Master key passphrase (WEFT_SECRET); otherwise `<dataDir>/master.key` is used. */
  secret?: string;
  /** The built editor. Default: apps/frontend/dist. */
  frontendDir?: string;
  /** Example workflows, agents and scenes loaded on first start, also the tools' read-only `@pkg/`. Default: the repository's workflows/. */
  examplesDir?: string;
  /** The tools' `@project/` folder (the user's files). Default: `<dataDir>-project`, beside the data folder, never inside it (that holds the master key). */
  projectDir?: string;
  /** Start the embedded demo LLM (the default profile). Default true. */
  demoLlm?: boolean;
  /** WEFT_MAX_OUTPUT_BYTES: the most one node may return (default 8 MB); more fails the node with OUTPUT_TOO_LARGE. */
  maxOutputBytes?: number;
  runConcurrency?: number;
  maxQueuedRuns?: number;
  maxBodyBytes?: number;
  /** How long running runs may take to finish on shutdown before they are stopped. */
  shutdownGraceMs?: number;
  /** How often this process takes overdue approvals' defaults and resumes decided runs (WEFT_APPROVAL_SWEEP_MS, default 1000). */
  approvalSweepMs?: number;
  /** Chat completions one user may have in flight at once on /v1 (WEFT_V1_CONCURRENCY, default 8). */
  v1Concurrency?: number;
  /** The least time between two MCP `resources/updated` notifications of one run (default 250 ms). */
  mcpResourceUpdateMs?: number;
  journal?: Partial<JournalOptions>;
  ws?: Partial<GatewayOptions>;
  /** Each `/ws` socket's message rate (auth/ws-access.ts). */
  wsRateLimits?: WsRateLimits;
  /** WEFT_PUBLIC_URL: the editor's address as users open it; an error workflow's `link` to the failed run starts with it. */
  publicUrl?: string;
  logger?: Logger;
}

export interface WeftServer {
  url: string;
  /** `url` with the access token: the link that signs the editor in. */
  editorUrl: string;
  /** What `Authorization: Bearer …` must carry. */
  accessToken: string;
  port: number;
  storage: Storage;
  /** The tools' `@project/` folder. */
  projectDir: string;
  /** The demo LLM's base URL, when it runs. */
  demoLlmBaseUrl?: string;
  /** Runs found unfinished at start (a previous process died) and marked interrupted. */
  interruptedAtStart: string[];
  /** Every route the app registered (method and Elysia pattern), for the test that each has a rule in auth/route-rules.ts. */
  routes(): { method: string; path: string }[];
  /** Graceful stop: refuse new work, let runs finish (or stop them), flush events, close. */
  stop(): Promise<void>;
}

const DEFAULT_FRONTEND = fileURLToPath(new URL("../../frontend/dist", import.meta.url));

/** The counts of what the queue mode dropped from Redis, for `/metrics`. */
const queueRejections = (mode: ApiQueueMode) => () => mode.seal.rejected();

export async function createServer(options: ServerOptions): Promise<WeftServer> {
  // One redactor for everything this server stores, sends and logs; the stored secrets are added as they are read.
  const redactor = new SecretRedactor();
  const log = redactingLogger(options.logger ?? createLogger("weft"), redactor);
  const maxBodyBytes = options.maxBodyBytes ?? 5 * 1024 * 1024;
  // One server per SQLite data folder (PostgreSQL is shared by design): a second would number the same event streams.
  const unlock = options.databaseUrl ? () => undefined : lockDataDir(options.dataDir);
  let opened: Awaited<ReturnType<typeof openProcessStorage>>;
  try {
    opened = await openProcessStorage({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, poolSize: options.dbPoolSize, redactor, log });
  } catch (error) {
    unlock();
    throw error;
  }
  const { storage, payloads } = opened;
  let runtime: RunRuntime | undefined;
  let scenes: Scenes | undefined;
  let queueMode: ApiQueueMode | undefined;
  try {
    const auth = await composeAuth(options, { storage, redactor, maxBodyBytes, log });
    const { token, accounts, boundary } = auth;
    // The engine and its services (LLM profiles, credentials, MCP servers, tool host, caches): built as a worker builds them.
    const rt = (runtime = await createRunRuntime({
      storage,
      redactor,
      log,
      dataDir: options.dataDir,
      ...runtimeChoices(options),
      createDefaultProfiles: true,
    }));
    const { llmProfiles, credentials, mcpSettings, catalog, workflows, permissions, projectDir, toolHost, llm, caches, engine, engineFor } = rt;
    await loadExamplesOnce(storage, rt.examplesDir, log.child("examples"));
    await markShippedWorkflows(storage, rt.examplesDir);
    // The API and runs also name skills that no longer exist; the Builder checks its staged set alone (a skill and its caller may be staged together).
    const validator = withSkillCheck(engine, (id) => storage.workflows.isStored(id));

    // Queue mode: runs, agents' loops and scenes go to BullMQ workers, and events and cancels travel through Redis (see queue/).
    const queued = (queueMode = await composeApiQueue(options, { storage, rt, redactor, log }));
    const dispatcher = queueMode?.dispatcher;
    const hub = queueMode?.hub ?? new EventHub();
    // Waiting events are written 5 ms after the first when the journal was idle (a watcher sees them at once), but at
    // most once per 50 ms: each write is a commit rewriting the same hot pages, and in a busy scene the scene's own
    // commits carry the waiting events anyway.
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5, spacingMs: 50, ...options.journal }, log.child("journal"), payloads);
    journal.onRunAdded((record) => rt.usage.runFacts.know(record));
    const hosting = hostingOf(rt, storage, journal);
    const queue = new RunQueue(options.runConcurrency ?? 4, options.maxQueuedRuns ?? 10_000, (id, error) => log.error("run job failed", { runId: id, error: messageOf(error) }));
    // Metrics from the stored events (the hub's tap), health from the database and the queue.
    const ops = createOps({ storage, queue: queueMode?.probe ?? embeddedQueueProbe(queue), version: pkg.version, ...(queueMode ? { queueRejections: queueRejections(queueMode) } : {}) });
    hub.tap(ops.observe);
    rt.usage.recorder.onRecord(ops.metrics.llmUsage);
    const approvals = composeApprovals(options, { storage, redactor, accounts: accounts.service, maxBodyBytes, log });
    const { service: runs, api: runsApi } = createRuns({
      storage,
      journal,
      queue,
      ...(dispatcher ? { dispatcher: () => dispatcher } : {}),
      validator,
      engineFor,
      maxBodyBytes,
      waits: approvals.waits,
      log: log.child("runs"),
      errorWorkflows: { mayRun: accounts.mayRun, ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}) },
    });
    const {
      service: agents,
      api: agentsApi,
      continueAfterApproval,
    } = createAgents({
      ...hosting,
      maxBodyBytes,
      // Queue mode: each message's loop runs on a worker. Embedded: an ask_approval goes to the approvals inbox.
      ...(queued ? { host: queued.agentHost } : { approvals: approvals.forAgents }),
      permissions: () => permissions.current.policy,
      log: log.child("agents"),
    });
    // Webhooks and schedules start runs from outside: session routes to switch them on, the public /hooks/ they answer on, the scheduler.
    const triggers = createTriggers({
      engine: storage,
      storage,
      runs,
      hub,
      box: rt.box,
      maxBodyBytes,
      log: log.child("triggers"),
      ...(options.scheduleSyncMs !== undefined ? { scheduleSyncMs: options.scheduleSyncMs } : {}),
    });
    // Eval suites: their cases run as ordinary runs (on the workers in queue mode), judged with the LLM service.
    const evals = createEvals({
      engine: storage,
      storage,
      runs,
      hub,
      journal,
      usage: rt.usage.repository,
      llm,
      agents: { host: agents, storage, catalog, workflows },
      maxBodyBytes,
      log: log.child("evals"),
    });
    const workflowsApi = createWorkflows({
      storage,
      validator,
      caches,
      maxBodyBytes,
      log: log.child("api"),
      shipped: () => shippedWorkflows(storage),
      savedBy: authorOf,
      onSaved: (id) => void triggers.scheduler.rearm(id),
    }).api;
    // Queue mode: scenes run on workers (queue/scene-worker.ts); this process asks the worker holding one.
    scenes = createScenes({ ...hosting, maxBodyBytes, log: log.child("scenes") }, queued?.sceneHost);
    // Scene suites: each variation runs as an ordinary scene run (of a stored copy of the scene) on the scene host.
    const sceneSuites = createSceneSuites({ engine: storage, port: sceneCaseRuns({ host: scenes.service, scenes: storage.scenes }), maxBodyBytes, log: log.child("evals") });
    const interruptedAtStart = await runs.recoverInterrupted();
    if (interruptedAtStart.length > 0) log.warn("runs interrupted by the previous shutdown", { count: interruptedAtStart.length });
    // A decision on an agent's ask_approval continues its conversation (the agents' resumer, handed over here: neither domain imports the other).
    if (continueAfterApproval) approvals.service.attachAgents(continueAfterApproval);
    approvals.connect(runs);
    await evals.service.recover();
    await sceneSuites.service.recover();

    const { gateway, plugin: wsPlugin } = composeWs({
      events: storage.events,
      hub,
      knows: async (streamId) =>
        (await storage.events.lastSeq(streamId)) >= 0 ||
        (await storage.runs.get(streamId)) !== undefined ||
        (await storage.conversations.get(streamId)) !== undefined ||
        (await storage.scenes.get(streamId)) !== undefined ||
        (await evals.service.knows(streamId)),
      access: auth.wsAccess,
      ...(options.ws ? { options: options.ws } : {}),
      log,
    });
    // Credential changes made in the other API processes close their sockets here too.
    await queueMode?.followAccounts(accounts.service, (userId) => auth.wsAccess.recheckUser(userId));
    const builder = composeBuilder({ storage, catalog, validator: engine, llm, toolHost, maxBodyBytes, log: log.child("builder"), permissions: () => permissions.current.policy });
    const sceneDocuments = sceneDocumentsApi({ storage, permissions: () => permissions.current.policy, sceneRuntime: scenes.service, maxBodyBytes, log: log.child("api") });
    const api = createApi(
      { redactor: storage.redactor, log: log.child("api") },
      {
        frontendDir: options.frontendDir ?? DEFAULT_FRONTEND,
        gate: boundary,
        refusals: [sceneRefusalOf],
        errorFormats: [OPENAI_ERRORS],
        routes: [
          auth.api,
          healthApi({ catalog }),
          llmProfilesApi(llmProfiles, maxBodyBytes),
          rt.usage.api,
          sceneDocuments,
          conversationsApi(agents, maxBodyBytes),
          permissionsApi(permissions, maxBodyBytes),
          workflowsApi,
          runsApi,
          agentsApi,
          createOpenAiCompat({ agents, storage, hub, maxBodyBytes, usage: rt.usage.repository, ...(options.v1Concurrency ? { concurrentPerUser: options.v1Concurrency } : {}) }),
          createA2a({ agents, storage, hub, sql: storage.sql, maxBodyBytes, version: pkg.version }),
          wsPlugin,
          builder.api,
          scenes.api,
          accounts.api,
          credentialsApi(credentials, maxBodyBytes),
          mcpSettingsApi(mcpSettings, maxBodyBytes),
          mcpApi({
            storage,
            runs,
            hub,
            agents: storage.agents,
            approvals: approvals.service,
            callerModels: rt.callerModels,
            version: pkg.version,
            maxBodyBytes,
            log: log.child("mcp"),
            ...(options.mcpResourceUpdateMs !== undefined ? { resourceUpdateMs: options.mcpResourceUpdateMs } : {}),
          }),
          ops.api,
          triggers.api,
          triggers.hooks,
          approvals.api,
          evals.api,
          sceneSuites.api,
          openApiApi(() => api.routes, API_ROUTES, pkg.version),
        ],
        websocket: { backpressureLimit: 64 * 1024 * 1024, closeOnBackpressureLimit: false, perMessageDeflate: false, idleTimeout: 120 },
      },
    );
    // Bun's own limit is only a backstop: the API refuses oversized bodies itself, with a JSON error.
    // Elysia asks Bun for SO_REUSEPORT: a second Weft started on the same port would then silently share its connections
    // (and write the same data folder with its own numbering). Refused instead: the port is in use.
    try {
      api.listen({ port: options.port ?? 3000, hostname: options.hostname ?? "127.0.0.1", reusePort: false, maxRequestBodySize: Math.max(maxBodyBytes * 4, 64 * 1024 * 1024) });
    } catch (error) {
      throw isAddressInUse(error) ? new PortInUseError(options.hostname ?? "127.0.0.1", options.port ?? 3000) : error;
    }
    const server = api.server;
    if (!server) throw new Error("the HTTP server did not start");
    const sceneRuntime = scenes;
    await sceneRuntime.recover();
    // Schedules fire from now on (each tick once, whichever API process claims it first).
    triggers.scheduler.start();
    const port = server.port ?? 0;
    const host = options.hostname ?? "127.0.0.1";
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        const closed = server.stop(false);
        await triggers.scheduler.stop();
        await approvals.stop();
        await Promise.all([runs.shutdown(options.shutdownGraceMs ?? 5000), agents.shutdown(options.shutdownGraceMs ?? 5000), sceneRuntime.shutdown()]);
        await evals.service.shutdown();
        await sceneSuites.service.shutdown();
        await rt.closeTools();
        await journal.flush();
        gateway.closeAll(1001, "server shutting down; reconnect and resume from your last seq");
        await Promise.race([closed, Bun.sleep(2000)]);
        await server.stop(true);
        await rt.close();
        await queueMode?.close();
        await storage.close();
        unlock();
      })());

    log.info("listening", { url, dataDir: options.dataDir });
    const editorUrl = `${url}/?token=${encodeURIComponent(token.value)}`;
    return {
      url,
      editorUrl,
      accessToken: token.value,
      port,
      storage,
      projectDir,
      ...(rt.demoLlmBaseUrl ? { demoLlmBaseUrl: rt.demoLlmBaseUrl } : {}),
      interruptedAtStart,
      routes: () => api.routes.map((r) => ({ method: r.method, path: r.path })),
      stop,
    };
  } catch (error) {
    await scenes?.shutdown();
    await runtime?.close();
    await queueMode?.close();
    await storage.close();
    unlock();
    throw error;
  }
}
