import type {
  AgentProfileInput,
  AgentStateStore,
  AgentStatus,
  AgentStepTrace,
  ApprovalRequest,
  ContextBudgetInput,
  ConversationStore,
  LlmService,
  Logger,
  NodeCatalog,
  NodeServices,
  PermissionPolicy,
  RunEventSink,
  ToolHostService,
  WorkflowSource,
} from "@weft/types";
import type { ToolOutputStore } from "../conversation/index.ts";
import type { ExecutionEngine } from "../engine/index.ts";
import type { AgentError } from "./errors.ts";
import type { MistakeLimits } from "./mistake-tracker.ts";
import type { PermissionBroker } from "./permission-broker.ts";
import type { ActionJournal } from "./step-environment.ts";

export interface AgentInstanceOptions {
  profile: AgentProfileInput;
  engine: ExecutionEngine;
  /** Node types the profile's tools come from (usually the engine's catalog). */
  catalog: NodeCatalog;
  /** The deliberation workflow and the skills. */
  workflows: WorkflowSource;
  conversations: ConversationStore;
  /** Continue this conversation (created when it does not exist); default a new one. */
  conversationId?: string;
  /** The agent id in events, traces and permission rules (a scene's instance id); default the profile id. */
  instanceId?: string;
  /** The LLM for the deliberation (bound to the profile's `llmProfileId`); default the engine's. */
  llm?: LlmService;
  /** For the file and shell tools; bound to this agent and conversation on every call. */
  toolHost?: ToolHostService;
  /**
   * The tool host's rules, to leave denied tools out of the manifest (default: a `ToolHost`'s own
   * policy, read again at the start of every loop, so changed settings apply from the next message).
   */
  permissions?: PermissionPolicy;
  /** The tool host's gate: questions of this conversation come here and wait for `answerPermission`. */
  permissionBroker?: PermissionBroker;
  /**
   * Whether this host can take an `ask_approval` request (default false): only one that stores it where someone can
   * decide it (the backend's approvals inbox) and continues the loop with `answerApproval` once decided. The tool is
   * offered to profiles that enable it (`askApproval`); where the host cannot take it, a call gets an error observation
   * saying so (the agent goes on without waiting).
   */
  approvals?: boolean;
  /**
   * Stores an `ask_approval` request where it will be decided, before the session says `waiting_approval` (so a
   * stored waiting session always has its request stored); a failure ends the loop `failed` instead of waiting.
   */
  onApprovalAsked?: (ask: { step: number; request: ApprovalRequest }) => Promise<void>;
  /** Scene services (world, events, private state); without a private state the agent keeps its own. */
  services?: NodeServices;
  stateStore?: AgentStateStore;
  /** Keeps results too large for an Observation (e.g. `FileToolOutputStore` on the @state/ folder). */
  outputStore?: ToolOutputStore;
  systemPrompt?: string;
  budget?: ContextBudgetInput;
  mistakes?: MistakeLimits;
  observationChars?: number;
  /** `agent.*` events, on the conversation's stream. */
  onEvent?: RunEventSink;
  /** Events of the deliberation and action runs, each on its run's stream. */
  onRunEvent?: RunEventSink;
  logger?: Logger;
}

export interface AgentRunOptions {
  signal?: AbortSignal;
  /** Services for this loop only (a scene's, per trigger), over the instance's. */
  services?: NodeServices;
  /** Wraps the loop's LLM for this loop only (a scene records each answer, or serves recorded ones after a crash). */
  llm?: (llm: LlmService) => LlmService;
  /** Wraps the conversation store for this loop only (a scene commits its effects before each step is recorded). */
  conversations?: (store: ConversationStore) => ConversationStore;
  /** Wraps the session store for this loop only (a scene saves the counters with its commit). */
  sessions?: (store: AgentStateStore) => AgentStateStore;
  /** Records this loop's tool calls, and gives back those already run before a crash (a scene's deliberation). */
  actions?: ActionJournal;
  /** The id of the message `sendMessage` appends (a scene names its trigger, to find it again after a crash). */
  messageId?: string;
  /** The user this loop acts for (who sent the message): named on its tool calls, so the audit log says who they were for. */
  userId?: string;
}

/** How a loop ended. */
export interface AgentRunResult {
  conversationId: string;
  status: AgentStatus;
  reason?: string;
  /** The final answer (`completed`). */
  text?: string;
  /** What the agent asks the user (`waiting_user`); answer it with `sendMessage`. */
  question?: string;
  steps: AgentStepTrace[];
  /** Why the loop failed (`failed`). */
  error?: AgentError;
}
