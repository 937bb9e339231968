import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import {
  AgentInstance,
  DirectoryWorkflowSource,
  ExecutionEngine,
  FileToolOutputStore,
  InMemoryConversationStore,
  PermissionBroker,
  ProfileLlmService,
  StaticLlmProfileResolver,
  ToolHost,
  shellSandboxFromEnv,
  displayUrl,
} from "@weft/agent-runtime";
import { createBuiltinRegistry } from "@weft/nodes";
import { AgentProfileSchema, TOOL_NAMES, createLogger, type AgentProfile, type LlmProfile, type PermissionAnswer, type RunEvent, type Workflow, type WorkflowSource, messageOf } from "@weft/types";
import { CliError, EXIT_INTERRUPTED, EXIT_USAGE } from "../support/cli-error.ts";
import { loadWorkflowFile } from "../support/load-workflow-file.ts";
import { startCliLlm } from "../support/cli-llm.ts";
import { printAgentEvent, reportAgentRun } from "../support/agent-report.ts";

export const AGENT_USAGE =
  'weft agent <profile.json|profile-id> --message "…" [--json] [--workflows <dir>] [--project <dir>]   run an agent to its answer, printing each step (demo LLM unless WEFT_LLM_BASE_URL and WEFT_LLM_MODEL are set)';

/** The repository's `workflows/` folder: where the default deliberation workflow and the example agents live. */
const DEFAULT_WORKFLOWS = resolve(import.meta.dir, "../../../../workflows");

interface LoadedProfile {
  profile: AgentProfile;
  /** Where its skills are looked up first. */
  directory: string;
}

export async function agentCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      message: { type: "string", short: "m" },
      json: { type: "boolean" },
      workflows: { type: "string" },
      project: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${AGENT_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`weft agent takes one profile file or id, got ${positionals.length}. Usage: ${AGENT_USAGE}`, EXIT_USAGE);
  if (values.message === undefined || values.message.trim() === "") throw new CliError(`weft agent needs --message "…": what to ask the agent. Usage: ${AGENT_USAGE}`, EXIT_USAGE);

  const workflowsDir = values.workflows ? resolve(values.workflows) : DEFAULT_WORKFLOWS;
  const loaded = await loadProfile(positionals[0]!, workflowsDir);
  const workflows = new LayeredWorkflowSource([new DirectoryWorkflowSource(loaded.directory), ...(loaded.directory === workflowsDir ? [] : [new DirectoryWorkflowSource(workflowsDir)])]);
  const llm = startCliLlm();
  const scratch = mkdtempSync(join(tmpdir(), "weft-agent-"));
  try {
    return await runAgent(loaded.profile, workflows, llm.profile, scratch, values.message, { json: values.json === true, project: resolve(values.project ?? process.cwd()) });
  } finally {
    await llm.demo?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function runAgent(profile: AgentProfile, workflows: WorkflowSource, llmProfile: LlmProfile, scratch: string, message: string, options: { json: boolean; project: string }): Promise<number> {
  const catalog = createBuiltinRegistry();
  const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([llmProfile]) });
  const engine = new ExecutionEngine({ catalog, workflows, services: { llm } });
  const conversationId = crypto.randomUUID();
  const stateRoot = join(scratch, "state");
  mkdirSync(stateRoot);
  const broker = new PermissionBroker();
  const toolHost = usesToolHost(profile) ? createToolHost(options.project, scratch, stateRoot, broker) : undefined;
  const print = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  let agent: AgentInstance | undefined;
  const created = await AgentInstance.create({
    profile,
    engine,
    catalog,
    workflows,
    conversations: new InMemoryConversationStore(),
    conversationId,
    llm,
    ...(toolHost ? { toolHost, permissionBroker: broker } : {}),
    outputStore: new FileToolOutputStore(join(stateRoot, conversationId)),
    onEvent: (event) => {
      printAgentEvent(event, print);
      if (event.type === "agent.permission.requested" && agent) void answerPermission(agent, event, print);
    },
  });
  if (!created.ok) throw new CliError(`${created.error.message}${created.error.hint ? ` ${created.error.hint}` : ""}`);
  agent = created.value;
  print(`agent ${profile.id} (${profile.protocol}) · LLM ${llmProfile.model} at ${displayUrl(llmProfile.baseUrl)}`);

  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    process.stderr.write("\ncancelling… (press Ctrl-C again to quit at once)\n");
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  try {
    let sent = await agent.sendMessage(message, { signal: controller.signal });
    while (sent.ok && sent.value.status === "waiting_user" && process.stdin.isTTY && !options.json) {
      const answer = await ask(`${sent.value.question ?? "The agent asks you something"}\n> `);
      sent = await agent.sendMessage(answer, { signal: controller.signal });
    }
    if (!sent.ok) throw new CliError(sent.error.message);
    return reportAgentRun(sent.value, { profile: llmProfile, fromEnv: llmProfile.id === "env" }, options.json);
  } finally {
    process.off("SIGINT", onInterrupt);
    agent.dispose();
  }
}

/** A question of the tool host: asked at the terminal, refused when nobody is there to answer. */
async function answerPermission(agent: AgentInstance, event: Extract<RunEvent, { type: "agent.permission.requested" }>, print: (text: string) => void): Promise<void> {
  let answer: PermissionAnswer["answer"] = "reject";
  if (process.stdin.isTTY) {
    const reply = (await ask(`Allow ${event.tool}${event.target ? ` on ${event.target}` : ""}? [o]nce, [a]lways, [r]eject: `)).trim().toLowerCase();
    answer = reply.startsWith("a") ? "always" : reply.startsWith("o") || reply.startsWith("y") ? "once" : "reject";
  } else print(`    (no terminal to ask: rejected)`);
  agent.answerPermission(event.requestId, { answer, ...(answer === "reject" ? { feedback: "The user did not allow this call." } : {}) });
}

async function ask(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
}

/** A profile file, or the id of a profile in `<workflows>/agents/`. */
async function loadProfile(arg: string, workflowsDir: string): Promise<LoadedProfile> {
  const looksLikeFile = arg.endsWith(".json") || arg.includes("/") || arg.includes("\\");
  if (looksLikeFile) {
    if (!existsSync(arg)) throw new CliError(`cannot read ${arg}: there is no such file. Fix: give the path of an agent profile .json file, or a profile id from ${join(workflowsDir, "agents")}.`);
    if (!statSync(arg).isFile()) throw new CliError(`cannot read ${arg}: it is a folder, not a file. Fix: give the path of an agent profile .json file.`);
    const file = await loadWorkflowFile(arg, "agent");
    const directory = basename(file.directory) === "agents" ? dirname(file.directory) : file.directory;
    return { profile: checkProfile(file.document, arg), directory };
  }
  const agentsDir = join(workflowsDir, "agents");
  const files = existsSync(agentsDir)
    ? readdirSync(agentsDir)
        .filter((f) => f.endsWith(".json"))
        .sort()
    : [];
  const ids: string[] = [];
  for (const name of [`${arg}.json`, ...files.filter((f) => f !== `${arg}.json`)]) {
    const path = join(agentsDir, name);
    if (!existsSync(path)) continue;
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      continue;
    }
    const id = (doc as { id?: unknown } | null)?.id;
    if (typeof id === "string") ids.push(id);
    if (id === arg) return { profile: checkProfile(doc, path), directory: workflowsDir };
  }
  throw new CliError(
    `unknown agent profile "${arg}": no profile with that id in ${agentsDir}. ${ids.length > 0 ? `The profiles there are: ${[...new Set(ids)].sort().join(", ")}.` : "There are none."} Fix: give one of them, or the path of a profile .json file.`,
  );
}

function checkProfile(doc: unknown, where: string): AgentProfile {
  const parsed = AgentProfileSchema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(profile)"}: ${i.message}`).join("\n");
  throw new CliError(`${where} is not a valid agent profile:\n${problems}\nFix these fields; a profile needs at least "id", "name" and "deliberationWorkflowId".`);
}

const HOST_TOOL_FORMS: ReadonlySet<string> = new Set(TOOL_NAMES.map((t) => t.replace(".", ":").replace(/_/g, "-")));

function usesToolHost(profile: AgentProfile): boolean {
  return profile.tools.some((t) => HOST_TOOL_FORMS.has(t));
}

/** @project/ is the project folder; @pkg/ and @state/ are this run's scratch folders. Writes and commands are asked first. */
function createToolHost(project: string, scratch: string, stateRoot: string, broker: PermissionBroker): ToolHost {
  const pkg = join(scratch, "pkg");
  mkdirSync(pkg);
  try {
    return new ToolHost({
      mounts: { project, pkg, state: stateRoot },
      gate: broker,
      permissions: {
        defaultAction: "allow",
        rules: [
          { action: "ask", tool: "fs.write" },
          { action: "ask", tool: "fs.apply_patch" },
          { action: "ask", tool: "shell.exec" },
        ],
      },
      shellSandbox: shellSandboxFromEnv(process.env, createLogger("weft")),
    });
  } catch (error) {
    throw new CliError(`the file tools cannot use ${project} as the project folder: ${messageOf(error)} Fix: run from (or pass --project) a project folder.`);
  }
}

/** Workflows from several folders, the first that has an id winning (the profile's own folder first). */
class LayeredWorkflowSource implements WorkflowSource {
  constructor(private readonly sources: readonly WorkflowSource[]) {}

  async getWorkflow(id: string): Promise<Workflow | undefined> {
    for (const source of this.sources) {
      const found = await source.getWorkflow(id);
      if (found) return found;
    }
    return undefined;
  }
}
