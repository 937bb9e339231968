import { ConversationMessageSchema, ConversationSchema, type Conversation, type ConversationMessage, type ConversationMode, type ConversationStore } from "@weft/types";
import { isMadeEntry } from "./messages.ts";

export type ConversationStoreErrorCode = "CONVERSATION_NOT_FOUND" | "CONVERSATION_EXISTS" | "INVALID_MESSAGE" | "DUPLICATE_MESSAGE_ID";

export class ConversationStoreError extends Error {
  constructor(
    readonly code: ConversationStoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ConversationStoreError";
  }
}

/**
 * Validates a batch before anything is written: each entry against the schema, ids unique within
 * the batch and against `existingIds`. Shared by every store so they reject the same things.
 */
export function validateMessages(conversationId: string, messages: readonly unknown[], existingIds: ReadonlySet<string>): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const seen = new Set<string>();
  messages.forEach((raw, index) => {
    const parsed = isMadeEntry(raw) ? { success: true as const, data: raw } : ConversationMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue.path.length > 0 ? issue.path.join(".") : "(message)";
      throw new ConversationStoreError("INVALID_MESSAGE", `Message #${index} for conversation "${conversationId}" is invalid at ${path}: ${issue.message}. Nothing was appended.`);
    }
    const id = parsed.data.id;
    if (existingIds.has(id) || seen.has(id)) {
      throw new ConversationStoreError("DUPLICATE_MESSAGE_ID", `Message id "${id}" already exists in conversation "${conversationId}". Nothing was appended.`);
    }
    seen.add(id);
    out.push(parsed.data);
  });
  return out;
}

interface Entry {
  conversation: Conversation;
  messages: ConversationMessage[];
  ids: Set<string>;
}

/** Conversation logs in memory (tests, the CLI); the backend keeps them in SQLite behind the same interface. */
export class InMemoryConversationStore implements ConversationStore {
  private readonly entries = new Map<string, Entry>();

  async create(input: { id?: string; title?: string; activeMode?: ConversationMode; agentId?: string }): Promise<Conversation> {
    const id = input.id ?? crypto.randomUUID();
    if (this.entries.has(id)) throw new ConversationStoreError("CONVERSATION_EXISTS", `Conversation "${id}" already exists.`);
    const now = new Date().toISOString();
    const conversation = ConversationSchema.parse({ ...input, id, createdAt: now, updatedAt: now });
    this.entries.set(id, { conversation, messages: [], ids: new Set() });
    return { ...conversation };
  }

  async get(conversationId: string): Promise<Conversation | undefined> {
    const entry = this.entries.get(conversationId);
    return entry ? { ...entry.conversation } : undefined;
  }

  async setActiveMode(conversationId: string, mode: ConversationMode): Promise<Conversation> {
    const entry = this.require(conversationId);
    entry.conversation = { ...entry.conversation, activeMode: mode, updatedAt: new Date().toISOString() };
    return { ...entry.conversation };
  }

  async append(conversationId: string, messages: readonly ConversationMessage[]): Promise<void> {
    const entry = this.require(conversationId);
    const valid = validateMessages(conversationId, messages, entry.ids);
    for (const m of valid) {
      entry.messages.push(m);
      entry.ids.add(m.id);
    }
    entry.conversation = { ...entry.conversation, updatedAt: new Date().toISOString() };
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    return [...this.require(conversationId).messages];
  }

  private require(conversationId: string): Entry {
    const entry = this.entries.get(conversationId);
    if (!entry) throw new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
    return entry;
  }
}
