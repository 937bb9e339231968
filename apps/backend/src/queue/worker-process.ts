import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine, PermissionBroker, ProfileLlmService, startDemoLlm, type DemoLlm } from "@weft/agent-runtime";
import { createLogger, redactingLogger, SecretRedactor, type Logger, type NodeServices, type WorkflowSource } from "@weft/types";
import { openStorage, type Storage } from "../storage/storage.ts";
import { loadMasterKey } from "../secrets/master-key.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { LlmProfileService } from "../llm/profile-service.ts";
import { CredentialService } from "../credentials/credential-service.ts";
import { createCredentialRepository } from "../storage/credential-repository.ts";
import { McpManager } from "../mcp/mcp-manager.ts";
import { McpLayeredCatalog, mcpToolSource } from "../mcp/mcp-catalog.ts";
import { McpSettings } from "../settings/mcp-settings.ts";
import { PermissionSettings } from "../settings/permission-settings.ts";
import { createToolHost } from "../tools/tool-host-setup.ts";
import { resolveProjectDir } from "../tools/project-dir.ts";
import { EventJournal } from "../events/event-journal.ts";
import { PayloadStore } from "../events/payload-store.ts";
import { withPayloadReads } from "../events/payload-reads.ts";
import { RunExecutor } from "../runs/run-executor.ts";
import { CACHE_ENTRIES_PER_WORKFLOW, CACHED_WORKFLOWS, WorkflowCaches } from "../runs/workflow-caches.ts";
import type { Redis } from "ioredis";
import { openRedis } from "./queue-names.ts";
import { RelayingEventHub } from "./event-relay.ts";
import { RunWorker } from "./run-worker.ts";

export interface WorkerProcessOptions {
  /** Folder of the master key (unless `secret`), the tools' state and, without `databaseUrl`, the SQLite file: the API's. */
  dataDir: string;
  /** WEFT_DATABASE_URL: the API's PostgreSQL database. */
  databaseUrl?: string;
  /** WEFT_DB_POOL_SIZE: PostgreSQL connections in this worker's pool (default 10). */
  dbPoolSize?: number;
  /** WEFT_REDIS_URL: the API's Redis. */
  redisUrl: string;
  /** WEFT_SECRET: the master key passphrase; workers on other machines need it (or a copy of the key file). */
  secret?: string;
  /** Runs executed at once. Default 4. */
  concurrency?: number;
  examplesDir?: string;
  projectDir?: string;
  /** Start an embedded demo LLM for the default profile, as the API does. Default true. */
  demoLlm?: boolean;
  /** See `RunWorkerOptions.lockMs`. */
  lockMs?: number;
  /** How long running runs may take to finish on SIGTERM before they are stopped (`interrupted`). */
  shutdownGraceMs?: number;
  logger?: Logger;
}

export interface WorkerProcess {
  /** This worker's id in event announcements and logs. */
  id: string;
  storage: Storage;
  worker: RunWorker;
  /** Stops taking jobs, lets running ones finish (bounded by shutdownGraceMs), flushes events, closes. */
  stop(): Promise<void>;
}

const DEFAULT_EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

/**
 * `weft worker`: opens the API's storage, builds the engine the way the API does (same nodes, LLM
 * profiles, credentials, MCP servers and tool host) and executes run jobs from the queue.
 *
 * Each worker keeps its own output cache per workflow (`WorkflowCaches`): a re-run reuses upstream
 * outputs only when it lands on a worker that ran that workflow before. Sharing the cache through
 * Redis would ship every node output across the network for a saving most runs do not see.
 * Settings changed in the editor (permissions, MCP servers) reach a worker when it restarts.
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const id = `worker-${randomUUID()}`;
  const redactor = new SecretRedactor();
  const log = redactingLogger(options.logger ?? createLogger("weft-worker"), redactor);
  mkdirSync(options.dataDir, { recursive: true });
  const opened = await openStorage({
    dataDir: options.dataDir,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    ...(options.dbPoolSize !== undefined ? { poolSize: options.dbPoolSize } : {}),
    redactor,
  });
  // As in the API: large values are stored once and referenced, and every reader gets them whole.
  const payloads = new PayloadStore(opened.sql);
  const storage = withPayloadReads(opened, payloads);
  const mcp = new McpManager(McpSettings.toolCache(storage.settings, log.child("mcp-client")), log.child("mcp-client"));
  let demo: DemoLlm | undefined;
  let redis: Redis | undefined;
  let subscriber: Redis | undefined;
  try {
    const commands = (redis = await openRedis(options.redisUrl, `${id}:commands`, log.child("queue")));
    subscriber = await openRedis(options.redisUrl, `${id}:cancel`, log.child("queue"));
    const box = new SecretBox(loadMasterKey(options.dataDir, options.secret, redactor));
    demo = options.demoLlm === false ? undefined : startDemoLlm({ port: 0 });
    const demoUrl = demo?.baseUrl;
    // The API creates the default profiles; a worker only reads them.
    const llmProfiles = new LlmProfileService(storage.llmProfiles, box, { baseUrl: () => demoUrl }, redactor, log.child("llm"));
    await llmProfiles.redactStoredKeys();
    const credentials = new CredentialService(createCredentialRepository(storage.sql), box, redactor, log.child("credentials"));
    await credentials.redactStoredSecrets();
    await McpSettings.load(storage.settings, box, redactor, mcp, log.child("mcp-client"));
    const catalog = new McpLayeredCatalog(createBuiltinRegistry(), mcp);
    const workflows: WorkflowSource = { getWorkflow: async (workflowId) => (await storage.workflows.get(workflowId))?.document };
    const permissions = await PermissionSettings.load(storage.settings, log.child("settings"));
    const examplesDir = options.examplesDir ?? DEFAULT_EXAMPLES;
    const projectDir = resolveProjectDir(options.dataDir, options.projectDir, log);
    // Nobody can answer a permission question in a worker: what the policy says "ask" about is refused here.
    const toolHost = createToolHost(
      { project: projectDir, pkg: examplesDir, dataDir: options.dataDir },
      permissions.current.policy,
      new PermissionBroker(),
      log.child("tools"),
      process.env,
      credentials.resolver(),
    );
    toolHost?.addToolSource(mcpToolSource(mcp));
    const llm = new ProfileLlmService({ profiles: llmProfiles.resolver(), logger: log.child("llm") });
    const services: NodeServices = { llm, ...(toolHost ? { toolHost } : {}) };
    const engineLog = log.child("engine");
    const caches = new WorkflowCaches(CACHED_WORKFLOWS, CACHE_ENTRIES_PER_WORKFLOW);
    const engineFor = (workflowId: string) => new ExecutionEngine({ catalog, workflows, services, cache: caches.for(workflowId), logger: engineLog });

    const hub = new RelayingEventHub(id, commands, log.child("relay"));
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5 }, log.child("journal"), payloads);
    const executor = new RunExecutor({ journal, engineFor, log: log.child("runs") });
    const worker = new RunWorker(
      { redisUrl: options.redisUrl, concurrency: options.concurrency ?? 4, ...(options.lockMs !== undefined ? { lockMs: options.lockMs } : {}) },
      { storage, executor, redis: commands, subscriber, log: log.child("queue") },
    );
    await worker.start();
    log.info("worker ready", { id, concurrency: options.concurrency ?? 4 });

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        await worker.stop(options.shutdownGraceMs ?? 30_000);
        await journal.flush();
        await toolHost?.close();
        await mcp.stop();
        await demo?.stop();
        await commands.quit().catch(() => undefined);
        await storage.close();
      })());
    return { id, storage, worker, stop };
  } catch (error) {
    await mcp.stop();
    await demo?.stop();
    redis?.disconnect();
    subscriber?.disconnect();
    await storage.close();
    throw error;
  }
}
