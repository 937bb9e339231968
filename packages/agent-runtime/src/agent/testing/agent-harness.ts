import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBuiltinRegistry } from "@weft/nodes";
import { LlmProfileSchema, type AgentProfileInput, type RunEvent } from "@weft/types";
import { FileToolOutputStore, InMemoryConversationStore } from "../../conversation/index.ts";
import { DirectoryWorkflowSource, ExecutionEngine } from "../../engine/index.ts";
import { ProfileLlmService, StaticLlmProfileResolver } from "../../llm/index.ts";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "../../llm/testing/scripted-llm-server.ts";
import { ToolHost, type ToolHostOptions } from "../../toolhost/index.ts";
import { AgentInstance } from "../agent-instance.ts";
import type { AgentInstanceOptions } from "../agent-instance-options.ts";
import { InMemoryAgentStateStore } from "../agent-state-store.ts";
import { PermissionBroker } from "../permission-broker.ts";

/** The repository's `workflows/` folder: the real default deliberation workflow and example skills. */
export const WORKFLOWS_DIR = fileURLToPath(new URL("../../../../../workflows", import.meta.url));

export interface AgentHarness {
  server: ScriptedLlmServer;
  engine: ExecutionEngine;
  catalog: ReturnType<typeof createBuiltinRegistry>;
  workflows: DirectoryWorkflowSource;
  conversations: InMemoryConversationStore;
  states: InMemoryAgentStateStore;
  /** `agent.*` events, in order. */
  events: RunEvent[];
  /** Events of the deliberation and action runs. */
  runEvents: RunEvent[];
  /** Temporary folders: `project`, `pkg`, `state` (the tool host's mounts). */
  dirs: { base: string; project: string; pkg: string; state: string };
  broker: PermissionBroker;
  toolHost(options?: Omit<Partial<ToolHostOptions>, "mounts" | "gate">): ToolHost;
  create(profile: Partial<AgentProfileInput>, options?: Partial<AgentInstanceOptions>): Promise<AgentInstance>;
  /** The messages the LLM got in request `index` (0-based). */
  request(index: number): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * A real agent stack for tests: the scripted OpenAI-compatible server over HTTP, the real `openai`
 * SDK behind the LLM service, the engine with the built-in nodes, the repository's workflows,
 * in-memory conversation and state stores, and temporary folders for the tool host.
 */
export async function createAgentHarness(options: { turns?: ScriptedTurn[]; passBackReasoning?: boolean } = {}): Promise<AgentHarness> {
  const server = await startScriptedLlmServer({ turns: options.turns ?? [] });
  const profile = LlmProfileSchema.parse({ id: "scripted", name: "Scripted", baseUrl: server.baseUrl, model: server.model, maxRetries: 0, passBackReasoning: options.passBackReasoning ?? false });
  const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]) });
  const catalog = createBuiltinRegistry();
  const workflows = new DirectoryWorkflowSource(WORKFLOWS_DIR);
  const engine = new ExecutionEngine({ catalog, workflows, services: { llm } });
  const conversations = new InMemoryConversationStore();
  const states = new InMemoryAgentStateStore();
  const base = mkdtempSync(join(tmpdir(), "weft-agent-test-"));
  const dirs = { base, project: join(base, "project"), pkg: join(base, "pkg"), state: join(base, "state") };
  for (const dir of [dirs.project, dirs.pkg, dirs.state]) mkdirSync(dir);
  const broker = new PermissionBroker();
  const events: RunEvent[] = [];
  const runEvents: RunEvent[] = [];
  const agents: AgentInstance[] = [];
  return {
    server,
    engine,
    catalog,
    workflows,
    conversations,
    states,
    events,
    runEvents,
    dirs,
    broker,
    toolHost: (hostOptions = {}) => new ToolHost({ ...hostOptions, gate: broker, mounts: { project: dirs.project, pkg: dirs.pkg, state: dirs.state } }),
    async create(profile, extra = {}) {
      const created = await AgentInstance.create({
        profile: { id: "tester", name: "Tester", deliberationWorkflowId: "agent-deliberation", ...profile },
        engine,
        catalog,
        workflows,
        conversations,
        stateStore: states,
        llm,
        outputStore: new FileToolOutputStore(join(dirs.state, "outputs")),
        onEvent: (e) => events.push(e),
        onRunEvent: (e) => runEvents.push(e),
        ...extra,
      });
      if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
      agents.push(created.value);
      return created.value;
    },
    request(index) {
      const body = server.chatBodies()[index];
      if (!body) throw new Error(`the LLM got ${server.chatBodies().length} requests, not ${index + 1}`);
      return body.messages as Array<Record<string, unknown>>;
    },
    async stop() {
      for (const agent of agents) agent.dispose();
      await server.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** A text turn streamed in a few chunks, as a provider would. */
export function say(text: string): ScriptedTurn {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return { kind: "text", chunks };
}

/** An `<ACTION>` block calling `tool` with `params` as child tags. */
export function action(tool: string, params: Record<string, string>, before = "Let me do that."): string {
  const inner = Object.entries(params)
    .map(([k, v]) => `    <${k}>${v}</${k}>`)
    .join("\n");
  return `${before}\n<ACTION>\n  <${tool}>\n${inner}\n  </${tool}>\n</ACTION>`;
}
