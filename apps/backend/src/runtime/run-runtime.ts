import { fileURLToPath } from "node:url";
import { codeWorkers, createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine, PermissionBroker, ProfileLlmService, startDemoLlm, type DemoLlm, type ToolHost, type Tracing } from "@weft/agent-runtime";
import type { Logger, NodeServices, SecretRedactor, WorkflowSource } from "@weft/types";
import type { Storage } from "../app-storage.ts";
import { loadMasterKey } from "../secrets/master-key.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { LlmProfileService } from "../llm/profile-service.ts";
import { CallerModelLlm } from "../llm/caller-model-llm.ts";
import { CredentialService } from "../credentials/credential-service.ts";
import { CredentialTable } from "../credentials/credential-repository.ts";
import { McpManager } from "../mcp/mcp-manager.ts";
import { McpLayeredCatalog, mcpToolSource } from "../mcp/mcp-catalog.ts";
import { McpSettings } from "../settings/mcp-settings.ts";
import { PermissionSettings } from "../settings/permission-settings.ts";
import { createToolHost } from "../tools/tool-host-setup.ts";
import { resolveProjectDir } from "../tools/project-dir.ts";
import { toolCallsByUser } from "../accounts/tool-calls-by-user.ts";
import { AccountTable } from "../accounts/index.ts";
import { CACHE_ENTRIES_PER_WORKFLOW, CACHED_WORKFLOWS, WorkflowCaches } from "../workflows/workflow-caches.ts";
import { createUsage } from "../usage/index.ts";
import { startTracing, type ProcessTracing } from "../tracing/process-tracing.ts";

/** The repository's workflows/ folder: example content and the tools' read-only `@pkg/`. */
export const DEFAULT_EXAMPLES_DIR = fileURLToPath(new URL("../../../../workflows", import.meta.url));

export interface RunRuntimeOptions {
  /** Opened by the caller (with its payload reads): the runtime never closes it. */
  storage: Storage;
  /** The process's redactor: stored LLM keys, credentials and MCP secrets are added to it as they are read. */
  redactor: SecretRedactor;
  log: Logger;
  /** Folder of the master key (unless `secret`) and of the tools' `@state/` and audit log. */
  dataDir: string;
  /** WEFT_SECRET: the master key passphrase. */
  secret?: string;
  /** The tools' read-only `@pkg/`. Default: the repository's workflows/. */
  examplesDir?: string;
  /** The tools' `@project/`; see `resolveProjectDir`. */
  projectDir?: string;
  /** Start the embedded demo LLM (the default profile's endpoint). Default true. */
  demoLlm?: boolean;
  /** WEFT_MAX_OUTPUT_BYTES: the most one node may return; more fails it with OUTPUT_TOO_LARGE. Default the engine's 8 MB. */
  maxOutputBytes?: number;
  /** The API creates the default LLM profiles when missing; a worker only reads what the API stored. */
  createDefaultProfiles: boolean;
  /** Read by the tool host (WEFT_SHELL_SANDBOX) and tracing (`OTEL_*`). Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The traces' `service.name` unless OTEL_SERVICE_NAME sets one: `weft` for an API process, `weft-worker` for a worker. */
  serviceName?: string;
}

/** The runtime options an API process and a worker both take from their own options, passed on only when set. */
export type RuntimeChoices = Pick<RunRuntimeOptions, "secret" | "examplesDir" | "projectDir" | "demoLlm" | "maxOutputBytes">;

export function runtimeChoices(options: { [K in keyof RuntimeChoices]?: RuntimeChoices[K] | undefined }): RuntimeChoices {
  const { secret, examplesDir, projectDir, demoLlm, maxOutputBytes } = options;
  return {
    ...(secret !== undefined ? { secret } : {}),
    ...(examplesDir !== undefined ? { examplesDir } : {}),
    ...(projectDir !== undefined ? { projectDir } : {}),
    ...(demoLlm !== undefined ? { demoLlm } : {}),
    ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
  };
}

/** What executes workflows in this process — the same for an API process and a `weft worker`. */
export interface RunRuntime {
  /** Seals and opens secrets at rest with the installation's master key. */
  box: SecretBox;
  llmProfiles: LlmProfileService;
  credentials: CredentialService;
  mcpSettings: McpSettings;
  /** Built-in nodes plus the configured MCP servers' tools. */
  catalog: McpLayeredCatalog;
  workflows: WorkflowSource;
  permissions: PermissionSettings;
  /** Where the tool host's "ask" questions go. Nobody answers them in a worker, so there they are refused. */
  permissionBroker: PermissionBroker;
  /** The tools' `@project/` folder. */
  projectDir: string;
  examplesDir: string;
  /** The tool host itself (undefined when it could not start): agents, scenes and the Builder name their user per call. */
  toolHost: ToolHost | undefined;
  llm: ProfileLlmService;
  /** Runs' LLM service: `llm`, or the calling MCP client's model for the nodes that opt in and the runs it is offered for. */
  callerModels: CallerModelLlm;
  /** Every LLM call's tokens and cost, stored by the LLM service as it is answered (`GET /api/usage` reads them). */
  usage: ReturnType<typeof createUsage>;
  /** Set when the environment turned tracing on (`../tracing/`): the engine and the LLM service already trace with it. */
  tracing: Tracing | undefined;
  /** What workflow runs' nodes get: the LLM, and the tool host naming the user who started the run in the audit log. */
  services: NodeServices;
  /** Each workflow's output cache (per process). */
  caches: WorkflowCaches;
  /** An engine without a run cache: validation. */
  engine: ExecutionEngine;
  /** The engine a run of `workflowId` executes on, with that workflow's cache. */
  engineFor(workflowId: string): ExecutionEngine;
  demoLlmBaseUrl?: string;
  /** Stops the tool host and the MCP servers: once no run uses them any more. */
  closeTools(): Promise<void>;
  /** `closeTools()` if not done yet, then the demo LLM: last, after requests in flight may have used it. */
  close(): Promise<void>;
}

/**
 * The engine and everything its nodes use: master key, LLM profiles (and the demo LLM), credentials,
 * MCP servers, the node catalog, tool permissions and the tool host, the per-workflow caches.
 * `createServer` and `startWorkerProcess` both build it here, so a run executes with the same
 * services in an API process and on a worker, and whatever is added later reaches both.
 * On failure it stops what it started and rethrows.
 */
export async function createRunRuntime(options: RunRuntimeOptions): Promise<RunRuntime> {
  const { storage, redactor, log } = options;
  const mcp = new McpManager(McpSettings.toolCache(storage.settings, log.child("mcp-client")), log.child("mcp-client"));
  let demo: DemoLlm | undefined;
  let traces: ProcessTracing | undefined;
  try {
    traces = startTracing(options.env ?? process.env, options.serviceName ?? "weft", redactor, log.child("tracing"));
    const tracing = traces?.tracing;
    const box = new SecretBox(loadMasterKey(options.dataDir, options.secret, redactor));
    demo = options.demoLlm === false ? undefined : startDemoLlm({ port: 0 });
    const demoUrl = demo?.baseUrl;
    const llmProfiles = new LlmProfileService(storage.llmProfiles, box, { baseUrl: () => demoUrl }, redactor, log.child("llm"));
    if (options.createDefaultProfiles) await llmProfiles.ensureDefaults();
    await llmProfiles.redactStoredKeys();
    // A credential is used only in runs of the roles its owner allowed: the user's role now, read at each use.
    const accounts = new AccountTable(storage);
    const roleOf = async (userId: string) => (await accounts.getUser(userId))?.role;
    const credentials = new CredentialService(new CredentialTable(storage), box, redactor, log.child("credentials"), roleOf);
    await credentials.redactStoredSecrets();
    const mcpSettings = await McpSettings.load(storage.settings, box, redactor, mcp, log.child("mcp-client"));
    const catalog = new McpLayeredCatalog(createBuiltinRegistry(), mcp);
    const workflows: WorkflowSource = { getWorkflow: async (id) => (await storage.workflows.get(id))?.document };
    const permissionBroker = new PermissionBroker();
    const permissions = await PermissionSettings.load(storage.settings, log.child("settings"));
    const examplesDir = options.examplesDir ?? DEFAULT_EXAMPLES_DIR;
    const projectDir = resolveProjectDir(options.dataDir, options.projectDir, log);
    const toolHost = createToolHost(
      { project: projectDir, pkg: examplesDir, dataDir: options.dataDir },
      permissions.current.policy,
      permissionBroker,
      log.child("tools"),
      options.env ?? process.env,
      credentials.resolver(),
    );
    // Settings saved in this process apply at once; in the queue mode the others reload them (queue/settings-signal.ts).
    if (toolHost) permissions.onChange((policy) => toolHost.setPolicy(policy));
    toolHost?.addToolSource(mcpToolSource(mcp));
    // The owner's autoApprove lists answer `ask` for those MCP tools (PUT /api/settings/mcp is owner-only).
    if (toolHost) {
      toolHost.setStandingAnswers(mcp.autoApproveRules());
      mcp.onChange(() => toolHost.setStandingAnswers(mcp.autoApproveRules()));
    }
    const usage = createUsage({ engine: storage, runs: storage.runs, log: log.child("usage") });
    const llm = new ProfileLlmService({
      profiles: llmProfiles.resolver(),
      logger: log.child("llm"),
      onUsage: usage.recorder.record,
      beforeCall: usage.guard.beforeCall,
      ...(tracing ? { tracing } : {}),
    });
    const callerModels = new CallerModelLlm(llm, usage.recorder.record);
    // The audit log names the user whose run made each tool call.
    const services: NodeServices = { llm: callerModels, ...(toolHost ? { toolHost: toolCallsByUser(toolHost, async (runId) => (await storage.runs.get(runId))?.createdBy) } : {}) };
    const engineLog = log.child("engine");
    const caches = new WorkflowCaches(CACHED_WORKFLOWS, CACHE_ENTRIES_PER_WORKFLOW);
    const cap = { ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}), ...(tracing ? { tracing } : {}) };
    const engine = new ExecutionEngine({ catalog, workflows, services, logger: engineLog, ...cap });
    const engineFor = (workflowId: string) => new ExecutionEngine({ catalog, workflows, services, cache: caches.for(workflowId), logger: engineLog, ...cap });

    let toolsClosed: Promise<void> | undefined;
    const closeTools = () =>
      (toolsClosed ??= (async () => {
        await toolHost?.close();
        await mcp.stop();
      })());
    let closed: Promise<void> | undefined;
    const close = () =>
      (closed ??= (async () => {
        await closeTools();
        await demo?.stop();
        // The process's code threads: their runs were stopped before this, what still idles ends now.
        codeWorkers.close();
        // Last: the runs' final spans are ended by now.
        await traces?.shutdown();
      })());
    return {
      box,
      llmProfiles,
      credentials,
      mcpSettings,
      catalog,
      workflows,
      permissions,
      permissionBroker,
      projectDir,
      examplesDir,
      toolHost,
      llm,
      callerModels,
      usage,
      tracing,
      services,
      caches,
      engine,
      engineFor,
      ...(demoUrl ? { demoLlmBaseUrl: demoUrl } : {}),
      closeTools,
      close,
    };
  } catch (error) {
    await mcp.stop();
    await demo?.stop();
    await traces?.shutdown();
    throw error;
  }
}
