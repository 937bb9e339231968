import type { ConversationMessage, ConversationStore } from "@weft/types";

/** A store whose messages are numbered 0, 1, 2, … in log order and never change (the backend's SQLite and PostgreSQL repositories). */
export interface NumberedConversationStore extends ConversationStore {
  messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>>;
  /**
   * For a wrapper made per run whose `messages` and `messagesAfter` read from another store: that
   * store, so that what one wrapper read is not read again through the next one.
   */
  readonly readsFrom?: ConversationStore;
}

export function isNumberedStore(store: ConversationStore): store is NumberedConversationStore {
  return typeof (store as Partial<NumberedConversationStore>).messagesAfter === "function";
}

/** Conversations read lately, per store: the log so far and the number of its last message. */
interface Known {
  seq: number;
  messages: ConversationMessage[];
}

/** Conversations remembered per store, least recently read dropped first (an agent reads its own every step). */
const MAX_CONVERSATIONS = 256;
const byStore = new WeakMap<ConversationStore, Map<string, Known>>();

/**
 * The conversation's log, as `store.messages` gives it. An agent reads its conversation at every
 * step, and the log only grows: from a numbered store, the log is read whole once and afterwards
 * only the messages appended since (by anyone, in this process or another), instead of parsing
 * the whole log again each step. The entries are shared between reads: treat them as read-only.
 */
export async function conversationHistory(store: ConversationStore, conversationId: string): Promise<ConversationMessage[]> {
  if (!isNumberedStore(store)) return store.messages(conversationId);
  const key = store.readsFrom ?? store;
  let known = byStore.get(key);
  if (!known) byStore.set(key, (known = new Map()));
  let entry = known.get(conversationId);
  if (!entry) {
    // The first read is the whole log, which also fails as `messages` does for a conversation that does not exist.
    const messages = await store.messages(conversationId);
    entry = known.get(conversationId) ?? { seq: messages.length - 1, messages };
  } else {
    for (const { seq, message } of await store.messagesAfter(conversationId, entry.seq)) {
      // A read that overlapped another one may bring messages already taken.
      if (seq <= entry.seq) continue;
      if (seq !== entry.seq + 1) {
        // Not numbered densely after all: read the whole log from now on.
        known.delete(conversationId);
        return store.messages(conversationId);
      }
      entry.messages.push(message);
      entry.seq = seq;
    }
  }
  known.delete(conversationId);
  known.set(conversationId, entry);
  if (known.size > MAX_CONVERSATIONS) known.delete(known.keys().next().value as string);
  return entry.messages.slice();
}
