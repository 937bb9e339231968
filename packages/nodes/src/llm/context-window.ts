import {
  ChatMessageSchema,
  ConversationMessageSchema,
  NodeFailure,
  RunContextSchema,
  type ConversationMessage,
  type ConversationMode,
  type ConversationService,
  type NodeContext,
  type NodeValues,
  messageOf,
} from "@weft/types";
import { defineNode } from "../define-node.ts";

export const llmContextWindow = defineNode(
  {
    type: "llm:context-window",
    title: "Context window",
    description:
      "Builds the messages of the next LLM request from a conversation: the system prefix for the mode (chat: no persona; agent and run: the persona; run: RUN_DIRECTIVE and NODE_BRIEF too), then the newest history that fits the budget. It never splits a tool call from its results, always keeps the latest user message, and shows large tool outputs as a preview plus the path of the full output.",
    category: "llm",
    inputs: [
      {
        id: "history",
        type: "messages",
        label: "History",
        description: "The conversation: chat messages, or conversation-log entries (with id, createdAt, includeInContext…).",
      },
      { id: "conversationId", type: "string", label: "Conversation id", description: "Read the history from this stored conversation instead (or before `history`)." },
      { id: "prompt", type: "string", multiline: true, label: "New message", description: "The user's new message, added after the history." },
      { id: "persona", type: "string", multiline: true, label: "Persona", description: "Who the agent is; used in agent and run modes, never in chat mode." },
      {
        id: "runContext",
        type: "json",
        label: "Run context",
        description: 'Run mode only: {"workflow": "<id>", "state"?, "currentNodeId"?, "node"?: {"currentNodeId", "stepFile"?, "allowedNext"?: [{"nodeId", "label"?}]}}.',
      },
    ],
    outputs: [
      { id: "messages", type: "messages", label: "Messages", description: "The request's messages: system prefix, then the kept history." },
      { id: "debug", type: "json", label: "Debug", description: "What was kept and dropped, and why: counts, ids, estimated tokens, the limit that stopped the window." },
    ],
    config: [
      { id: "mode", kind: "select", options: ["chat", "agent", "run"], default: "agent", label: "Mode", description: "Which system prefix to use." },
      { id: "systemPrompt", kind: "multiline", default: "", label: "Base rules", description: "The mode's base system rules; empty for Weft's defaults." },
      { id: "maxMessages", kind: "integer", default: 80, min: 1, label: "Max messages", description: "Most history messages to send." },
      { id: "maxChars", kind: "integer", default: 120_000, min: 1, label: "Max characters", description: "Most history characters to send." },
      { id: "maxTokens", kind: "integer", min: 1, label: "Max tokens (estimated)", description: "Optional cap on the history's estimated tokens." },
      { id: "toolOutputThresholdChars", kind: "integer", default: 8_000, min: 1, label: "Preview tool outputs over", description: "Longer tool results are sent as a preview." },
      { id: "toolOutputPreviewChars", kind: "integer", default: 1_500, min: 1, label: "Preview length", description: "Characters of a long tool result that are sent." },
      {
        id: "passBackReasoning",
        kind: "boolean",
        default: false,
        label: "Pass back reasoning",
        description: "Send assistant reasoning back (providers that require it, e.g. DeepSeek thinking mode).",
      },
    ],
    flags: { idempotent: false },
  },
  contextWindow,
);

async function contextWindow(inputs: NodeValues, ctx: NodeContext): Promise<NodeValues> {
  // Input mistakes are reported first, even where the runtime's services are absent.
  const given = inputs.history === undefined ? [] : readHistory(inputs.history as unknown[]);
  const mode = ctx.config.mode as ConversationMode;
  let runContext;
  if (inputs.runContext !== undefined && inputs.runContext !== null) {
    const parsed = RunContextSchema.safeParse(inputs.runContext);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new NodeFailure("INVALID_INPUT", `Input "runContext" of llm:context-window is invalid at ${issue.path.join(".") || "(root)"}: ${issue.message}.`, { port: "runContext" });
    }
    runContext = parsed.data;
  }
  if (mode === "run" && !runContext) {
    throw new NodeFailure("INVALID_INPUT", 'Mode "run" needs `runContext` (at least {"workflow": "<workflow id>"}) to write RUN_DIRECTIVE.', { port: "runContext" });
  }

  const service = ctx.services.conversation;
  if (!service) {
    throw new NodeFailure(
      "MISSING_SERVICE",
      "llm:context-window needs the conversation service (ctx.services.conversation), which the Weft runtime provides. Run the workflow from the editor, the CLI or an agent.",
      { service: "conversation" },
    );
  }
  const history: ConversationMessage[] = [];
  if (typeof inputs.conversationId === "string" && inputs.conversationId !== "") {
    history.push(...(await loadConversation(service, inputs.conversationId)));
  }
  history.push(...given);
  if (typeof inputs.prompt === "string" && inputs.prompt.trim() !== "") {
    history.push({ id: `prompt-${ctx.invocationId}`, createdAt: new Date().toISOString(), role: "user", content: inputs.prompt });
  }

  const { messages, debug } = service.buildContext({
    mode,
    history,
    persona: typeof inputs.persona === "string" ? inputs.persona : undefined,
    systemPrompt: ctx.config.systemPrompt as string,
    runContext,
    passBackReasoning: ctx.config.passBackReasoning as boolean,
    budget: {
      maxMessages: ctx.config.maxMessages as number,
      maxChars: ctx.config.maxChars as number,
      ...(typeof ctx.config.maxTokens === "number" ? { maxTokens: ctx.config.maxTokens } : {}),
      toolOutputThresholdChars: ctx.config.toolOutputThresholdChars as number,
      toolOutputPreviewChars: ctx.config.toolOutputPreviewChars as number,
    },
  });
  return { messages, debug };
}

async function loadConversation(service: ConversationService, conversationId: string): Promise<ConversationMessage[]> {
  try {
    return await service.history(conversationId);
  } catch (error) {
    // Stores reject with coded errors (CONVERSATION_NOT_FOUND, …); keep the code for the run's observation.
    const code = typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "CONVERSATION_ERROR";
    const message = messageOf(error);
    throw new NodeFailure(code, `Cannot read conversation "${conversationId}": ${message}`, { port: "conversationId" });
  }
}

/** Conversation-log entries as they are; plain chat messages become entries with ids by position. */
function readHistory(list: unknown[]): ConversationMessage[] {
  return list.map((item, index) => {
    const entry = ConversationMessageSchema.safeParse(item);
    if (entry.success) return entry.data;
    const chat = ChatMessageSchema.safeParse(item);
    if (chat.success) return { ...chat.data, id: `history-${index}`, createdAt: new Date(0).toISOString() } as ConversationMessage;
    const issue = chat.error.issues[0];
    throw new NodeFailure("INVALID_MESSAGE", `Message ${index} of history is not a valid chat message${issue.path.length ? ` (field "${issue.path.join(".")}")` : ""}: ${issue.message}.`, {
      port: "history",
      index,
    });
  });
}
