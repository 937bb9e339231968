import type { ConversationMessage } from "@weft/types";
import type { NumberedConversationStore } from "../conversation-history.ts";
import { InMemoryConversationStore } from "../conversation-store.ts";

/** The in-memory store numbered as the backend's repositories are, counting the messages each read hands out. */
export class NumberedStore extends InMemoryConversationStore implements NumberedConversationStore {
  handedOut = 0;

  override async messages(conversationId: string): Promise<ConversationMessage[]> {
    const all = await super.messages(conversationId);
    this.handedOut += all.length;
    return all;
  }

  async messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>> {
    const after = (await super.messages(conversationId)).map((message, seq) => ({ seq, message })).filter((m) => m.seq > afterSeq);
    this.handedOut += after.length;
    return after;
  }
}
