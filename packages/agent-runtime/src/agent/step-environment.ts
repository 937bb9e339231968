import type { AgentActionTrace, AgentProfile, ContextBudgetInput, ConversationStore, NodeServices, RunEventSink } from "@weft/types";
import type { Manifest } from "../action/index.ts";
import type { ExecutionEngine } from "../engine/index.ts";
import type { ActionExecutor, ActionOutcome } from "./action-executor.ts";
import type { AgentEventStream } from "./agent-events.ts";
import type { Deliberation } from "./deliberation.ts";
import type { AgentProtocolAdapter } from "./protocol.ts";

export type PermissionRecord = AgentActionTrace["permissions"][number];

/** Collects the permission questions raised while one action runs. */
export interface PermissionRecorder {
  begin(): void;
  end(): PermissionRecord[];
}

/**
 * Where a loop's tool calls are recorded (a scene's deliberation): called as each call is about to
 * run, it gives the outcome of a call already run before a crash (then it is not run again) and
 * takes the outcome of one that runs.
 */
export interface ActionJournal {
  begin(call: { toolId: string; params: Record<string, unknown> }): { recorded?: ActionOutcome; completed(outcome: ActionOutcome): void };
}

/** Everything one deliberation step works with; the AgentInstance builds it for each loop. */
export interface StepEnvironment {
  agentId: string;
  conversationId: string;
  profile: AgentProfile;
  manifest: Manifest;
  deliberation: Deliberation;
  engine: ExecutionEngine;
  executor: ActionExecutor;
  protocol: AgentProtocolAdapter;
  conversations: ConversationStore;
  events: AgentEventStream;
  /** Events of the deliberation and action runs (each on its run's stream). */
  onRunEvent?: RunEventSink;
  /** Services for every run of the loop: LLM, tool host bound to the agent, private and world state. */
  services: NodeServices;
  context: { systemPrompt?: string; budget?: ContextBudgetInput; stateChars?: number };
  permissions: PermissionRecorder;
  actions?: ActionJournal;
  /** Set where the host cannot take an `ask_approval` request: why, as the call's error observation (nothing waits). */
  approvalsRefused?: string;
  signal: AbortSignal;
}
