export { buildContext, abortedToolResult } from "./context-builder.ts";
export { buildSystemPrefix, DEFAULT_BASE_RULES, RunContextMissingError } from "./system-prefix.ts";
export { formatRunDirective, formatNodeBrief, formatUserInput, formatModeBanner } from "./run-shells.ts";
export {
  userMessage,
  assistantMessage,
  toolResultMessage,
  llmErrorMessage,
  withStepTrace,
  toChatMessage,
  previewToolOutput,
  formatLlmErrorBlock,
  type MessageMeta,
  type ToChatOptions,
} from "./messages.ts";
export { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from "./token-estimate.ts";
export { FileToolOutputStore, storeLargeToolOutput, type ToolOutputStore } from "./tool-output-store.ts";
export { InMemoryConversationStore, ConversationStoreError, validateMessages, type ConversationStoreErrorCode } from "./conversation-store.ts";
export { conversationHistory, type NumberedConversationStore } from "./conversation-history.ts";
export { createConversationService } from "./conversation-service.ts";
