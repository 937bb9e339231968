import { z } from "zod";
import { AgentStepTraceSchema } from "./agent.ts";
import { LlmErrorInfoSchema, ToolCallSchema, type ChatMessage } from "./llm.ts";

/**
 * One protocol-complete conversation log shared by chat, agent and run modes (seed 003 §4.1
 * option A): every entry converts to an OpenAI message without losing tool-call structure.
 */
export const CONVERSATION_MODES = ["chat", "agent", "run"] as const;
export const ConversationModeSchema = z.enum(CONVERSATION_MODES);
export type ConversationMode = z.infer<typeof ConversationModeSchema>;

const meta = {
  id: z.string().min(1),
  /** ISO 8601. */
  createdAt: z.string().min(1),
  mode: ConversationModeSchema.optional(),
  runId: z.string().optional(),
  workflowId: z.string().optional(),
  agentId: z.string().optional(),
  /** Absent means true; false keeps a UI-only entry out of every LLM request. */
  includeInContext: z.boolean().optional(),
};

export const ConversationUserMessageSchema = z.object({ ...meta, role: z.literal("user"), content: z.string() });

export const ConversationAssistantMessageSchema = z.object({
  ...meta,
  role: z.literal("assistant"),
  /** For a failed call: the text streamed before the failure (seed 003 §4.3.4). */
  content: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema).optional(),
  reasoning_content: z.string().optional(),
  /** Set when the LLM call failed; the context shows it as an `LLM_ERROR` block after the partial text. */
  llmError: LlmErrorInfoSchema.omit({ partialText: true, partialReasoning: true }).optional(),
  /** The `LlmTurn` that produced this message, for the debugger. */
  turnId: z.string().optional(),
  /** In agent mode: the step this output started, with its actions and observations (never sent to the LLM). */
  agentStep: AgentStepTraceSchema.optional(),
});

export const ConversationToolMessageSchema = z.object({
  ...meta,
  role: z.literal("tool"),
  tool_call_id: z.string().min(1),
  /** The full result (JSON text for ToolResults). Large ones enter the context as a preview. */
  content: z.string(),
  toolName: z.string().optional(),
  durationMs: z.number().nonnegative().optional(),
  /** Where the full output was saved for the model to read on demand, e.g. `@state/logs/tool-results/c1.json`. */
  fullOutputPath: z.string().optional(),
});

/** A notice for the UI. System prompts are rebuilt per mode on every call, never taken from the log. */
export const ConversationSystemMessageSchema = z.object({ ...meta, role: z.literal("system"), content: z.string() });

export const ConversationMessageSchema = z.discriminatedUnion("role", [
  ConversationUserMessageSchema,
  ConversationAssistantMessageSchema,
  ConversationToolMessageSchema,
  ConversationSystemMessageSchema,
]);
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;
export type ConversationUserMessage = z.infer<typeof ConversationUserMessageSchema>;
export type ConversationAssistantMessage = z.infer<typeof ConversationAssistantMessageSchema>;
export type ConversationToolMessage = z.infer<typeof ConversationToolMessageSchema>;

/** What an agent conversation's fork changed at its step (`POST /api/conversations/:id/fork`); the rest came from the record. */
export const ConversationForkChangesSchema = z.object({
  /** The step's LLM output, replaced by this text (its `<ACTION>` ran live). */
  llmOutput: z.string().optional(),
  /** The step's observation, replaced by this text (the step's action was not run again). */
  observation: z.string().optional(),
  /** The agent profile's version the steps after the fork point ran with. */
  agentVersion: z.number().int().positive().optional(),
});
export type ConversationForkChanges = z.infer<typeof ConversationForkChangesSchema>;

/** The conversation and step a fork continues from. */
export const ConversationForkOfSchema = z.object({ conversationId: z.string(), step: z.number().int().positive() });
export type ConversationForkOf = z.infer<typeof ConversationForkOfSchema>;

export const ConversationSchema = z.object({
  id: z.string().min(1),
  title: z.string().default(""),
  /** The mode whose system prefix the next request uses (seed 003 §4.3.5). */
  activeMode: ConversationModeSchema.default("chat"),
  agentId: z.string().optional(),
  /** The conversation and step this one forks: what came before was copied from that conversation's record. */
  forkOf: ConversationForkOfSchema.optional(),
  /** What the fork changed (with `forkOf`). */
  forkChanges: ConversationForkChangesSchema.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

/** What a run-mode request injects before the history: RUN_DIRECTIVE and NODE_BRIEF (seed 000 §5). */
export const RunContextSchema = z.object({
  runType: z.string().default("weft-workflow"),
  intent: z.enum(["start", "continue", "resume"]).default("start"),
  workflow: z.string().min(1),
  runId: z.string().optional(),
  state: z.string().optional(),
  graph: z.string().optional(),
  artifactsRoot: z.string().optional(),
  currentNodeId: z.string().optional(),
  effectiveAgentId: z.string().optional(),
  autopilot: z.boolean().optional(),
  node: z
    .object({
      currentNodeId: z.string().min(1),
      stepFile: z.string().optional(),
      outputsMap: z.array(z.object({ from: z.string(), to: z.string() })).default([]),
      allowedNext: z.array(z.object({ nodeId: z.string(), label: z.string().optional() })).default([]),
    })
    .optional(),
  /** Extra step instructions, sent after NODE_BRIEF. */
  stepContext: z.string().optional(),
});
export type RunContext = z.infer<typeof RunContextSchema>;
export type RunContextInput = z.input<typeof RunContextSchema>;

/** History budget (seed 003 §7). It bounds the history only, so a mode switch never changes which history is kept. */
export const ContextBudgetSchema = z.object({
  maxMessages: z.number().int().positive().default(80),
  maxChars: z.number().int().positive().default(120_000),
  /** Optional estimated-token cap, applied with the character cap. */
  maxTokens: z.number().int().positive().optional(),
  /** Tool results longer than this enter the context as a preview plus the path of the full output. */
  toolOutputThresholdChars: z.number().int().positive().default(8_000),
  toolOutputPreviewChars: z.number().int().positive().default(1_500),
});
export type ContextBudget = z.infer<typeof ContextBudgetSchema>;
export type ContextBudgetInput = z.input<typeof ContextBudgetSchema>;

export interface BuildContextInput {
  mode: ConversationMode;
  history: readonly ConversationMessage[];
  /** The agent's persona; used in agent and run modes, never in chat mode. */
  persona?: string;
  /** Base rules for this mode; a built-in default when absent. */
  systemPrompt?: string;
  /** Which tools are on and their limits (seed 000 §3.1 ToolPolicy). */
  toolPolicy?: string;
  /** Required in run mode. */
  runContext?: RunContextInput;
  budget?: ContextBudgetInput;
  /** Send `reasoning_content` of kept assistant messages (providers that require it, seed 000 §8). */
  passBackReasoning?: boolean;
}

export const ContextDebugSchema = z.object({
  mode: ConversationModeSchema,
  /** Entries in the log. */
  historyMessages: z.number().int(),
  /** Entries marked `includeInContext: false` or UI-only system notices. */
  excludedMessages: z.number().int(),
  keptMessages: z.number().int(),
  droppedMessages: z.number().int(),
  prefixMessages: z.number().int(),
  keptIds: z.array(z.string()),
  droppedIds: z.array(z.string()),
  /** Tool results newer than the window's start whose assistant tool_calls are not in the log (never sent); older ones count as dropped. */
  orphanToolResultIds: z.array(z.string()),
  /** Call ids that got a synthetic "aborted" result. */
  syntheticToolResultCallIds: z.array(z.string()),
  /** Tool results sent as preview + path. */
  previewedToolResultIds: z.array(z.string()),
  /** Set when the latest user message lies before the kept window and was kept anyway. */
  pinnedLatestUserId: z.string().optional(),
  /** What stopped the window, if anything. */
  limitedBy: z.enum(["maxMessages", "maxChars", "maxTokens"]).optional(),
  historyChars: z.number().int(),
  historyEstimatedTokens: z.number().int(),
  chars: z.number().int(),
  estimatedTokens: z.number().int(),
  budget: ContextBudgetSchema,
});
export type ContextDebug = z.infer<typeof ContextDebugSchema>;

export interface BuildContextResult {
  messages: ChatMessage[];
  debug: ContextDebug;
}

/** The context builder as nodes see it (`ctx.services.conversation`, implemented in agent-runtime/conversation). */
export interface ConversationService {
  buildContext(input: BuildContextInput): BuildContextResult;
  /** The stored log of a conversation; rejects when there is no such conversation. */
  history(conversationId: string): Promise<ConversationMessage[]>;
}

/** Persistence of conversation logs: in memory in agent-runtime, SQLite in the backend. */
export interface ConversationStore {
  create(input: { id?: string; title?: string; activeMode?: ConversationMode; agentId?: string }): Promise<Conversation>;
  get(conversationId: string): Promise<Conversation | undefined>;
  setActiveMode(conversationId: string, mode: ConversationMode): Promise<Conversation>;
  /** Appends in order; each entry is validated first, and nothing is written when one is invalid. */
  append(conversationId: string, messages: readonly ConversationMessage[]): Promise<void>;
  messages(conversationId: string): Promise<ConversationMessage[]>;
}
