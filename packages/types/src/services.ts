/**
 * Runtime services that nodes reach through their context. Declared here so that
 * packages/nodes never imports the runtime; packages/agent-runtime and the backend implement them.
 * Each domain owns its file: llm.ts, conversation.ts, toolhost.ts, world.ts.
 */
import type { LlmService } from "./llm.ts";
import type { ConversationService } from "./conversation.ts";
import type { ToolHostService } from "./toolhost.ts";
import type { WorldStateService, EventBusService, PrivateStateService } from "./world.ts";

export interface NodeServices {
  llm?: LlmService;
  /** The context builder and conversation logs (seed 003). */
  conversation?: ConversationService;
  toolHost?: ToolHostService;
  world?: WorldStateService;
  events?: EventBusService;
  privateState?: PrivateStateService;
}
