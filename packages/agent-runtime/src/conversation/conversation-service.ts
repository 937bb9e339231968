import type { BuildContextInput, BuildContextResult, ConversationMessage, ConversationService, ConversationStore } from "@weft/types";
import { buildContext } from "./context-builder.ts";

/** The `ctx.services.conversation` nodes use: the context builder over a store's logs. */
export function createConversationService(store: ConversationStore): ConversationService {
  return {
    buildContext: (input: BuildContextInput): BuildContextResult => buildContext(input),
    history: (conversationId: string): Promise<ConversationMessage[]> => store.messages(conversationId),
  };
}
