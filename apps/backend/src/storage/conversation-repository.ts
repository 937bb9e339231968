import type { Database, Statement } from "bun:sqlite";
import { ConversationSchema, type Conversation, type ConversationMessage, type ConversationMode, type ConversationStore, type SecretRedactor } from "@weft/types";
import { ConversationStoreError, validateMessages } from "@weft/agent-runtime";

/** The conversation log store of the runtime, plus the listing the API needs. */
export interface ConversationRepository extends ConversationStore {
  listByAgent(agentId: string, limit: number): Promise<Conversation[]>;
  /** The messages numbered after `afterSeq` (messages are numbered from 0 and never change), with their numbers. */
  messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>>;
}

const NO_IDS: ReadonlySet<string> = new Set();

/** The unique index on (conversation_id, message_id) refused an insert. */
function isDuplicateMessageId(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "SQLITE_CONSTRAINT_UNIQUE" && error.message.includes("message_id");
}

interface ConversationRow {
  data: string;
}

/** Conversation logs in SQLite: one row per conversation, one per message, appended in order. */
export class SqliteConversationRepository implements ConversationRepository {
  private readonly insertConversation: Statement<unknown, [string, string | null, string, number, number]>;
  private readonly selectConversation: Statement<ConversationRow, [string]>;
  private readonly updateConversation: Statement<unknown, [string, number, string]>;
  private readonly selectByAgent: Statement<ConversationRow, [string, number]>;
  private readonly selectMessages: Statement<{ data: string }, [string]>;
  private readonly selectMessagesAfter: Statement<{ seq: number; data: string }, [string, number]>;
  private readonly selectLastSeq: Statement<{ seq: number | null }, [string]>;
  private readonly touchConversation: Statement<unknown, [string, number, string]>;
  private readonly insertMessage: Statement<unknown, [string, number, string, string]>;

  constructor(
    private readonly db: Database,
    private readonly redactor: SecretRedactor,
  ) {
    this.insertConversation = db.query("INSERT INTO conversations (id, agent_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)");
    this.selectConversation = db.query("SELECT data FROM conversations WHERE id = ?");
    this.updateConversation = db.query("UPDATE conversations SET data = ?, updated_at = ? WHERE id = ?");
    this.selectByAgent = db.query("SELECT data FROM conversations WHERE agent_id = ? ORDER BY updated_at DESC LIMIT ?");
    this.selectMessages = db.query("SELECT data FROM conversation_messages WHERE conversation_id = ? ORDER BY seq");
    this.selectMessagesAfter = db.query("SELECT seq, data FROM conversation_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq");
    this.selectLastSeq = db.query("SELECT max(seq) AS seq FROM conversation_messages WHERE conversation_id = ?");
    this.touchConversation = db.query("UPDATE conversations SET data = json_set(data, '$.updatedAt', ?), updated_at = ? WHERE id = ?");
    this.insertMessage = db.query("INSERT INTO conversation_messages (conversation_id, seq, message_id, data) VALUES (?, ?, ?, ?)");
  }

  async create(input: { id?: string; title?: string; activeMode?: ConversationMode; agentId?: string }): Promise<Conversation> {
    const id = input.id ?? crypto.randomUUID();
    if (this.selectConversation.get(id)) throw new ConversationStoreError("CONVERSATION_EXISTS", `Conversation "${id}" already exists.`);
    const now = new Date();
    const conversation = ConversationSchema.parse({ ...input, id, createdAt: now.toISOString(), updatedAt: now.toISOString() });
    this.insertConversation.run(id, conversation.agentId ?? null, JSON.stringify(conversation), now.getTime(), now.getTime());
    return conversation;
  }

  async get(conversationId: string): Promise<Conversation | undefined> {
    const row = this.selectConversation.get(conversationId);
    return row ? ConversationSchema.parse(JSON.parse(row.data)) : undefined;
  }

  async listByAgent(agentId: string, limit: number): Promise<Conversation[]> {
    return this.selectByAgent.all(agentId, limit).map((r) => ConversationSchema.parse(JSON.parse(r.data)));
  }

  async setActiveMode(conversationId: string, mode: ConversationMode): Promise<Conversation> {
    const current = await this.require(conversationId);
    const now = new Date();
    const next = { ...current, activeMode: mode, updatedAt: now.toISOString() };
    this.updateConversation.run(JSON.stringify(next), now.getTime(), conversationId);
    return next;
  }

  async append(conversationId: string, messages: readonly ConversationMessage[]): Promise<void> {
    // Ids already stored are found by the unique index on insert (rolling the batch back), not by a read per message.
    const valid = validateMessages(conversationId, messages, NO_IDS);
    const now = new Date();
    this.db.transaction(() => {
      // updatedAt set in place: an agent appends at every step, and reading, checking and rewriting the row each time added up.
      if (this.touchConversation.run(now.toISOString(), now.getTime(), conversationId).changes === 0) {
        throw new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
      }
      let seq = (this.selectLastSeq.get(conversationId)?.seq ?? -1) + 1;
      for (const m of valid) {
        try {
          this.insertMessage.run(conversationId, seq++, m.id, this.redactor.json(JSON.stringify(m)));
        } catch (error) {
          if (isDuplicateMessageId(error)) throw new ConversationStoreError("DUPLICATE_MESSAGE_ID", `Message id "${m.id}" already exists in conversation "${conversationId}". Nothing was appended.`);
          throw error;
        }
      }
    })();
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    await this.require(conversationId);
    return this.selectMessages.all(conversationId).map((r) => JSON.parse(r.data) as ConversationMessage);
  }

  async messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>> {
    return this.selectMessagesAfter.all(conversationId, afterSeq).map((r) => ({ seq: r.seq, message: JSON.parse(r.data) as ConversationMessage }));
  }

  private async require(conversationId: string): Promise<Conversation> {
    const conversation = await this.get(conversationId);
    if (!conversation) throw new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
    return conversation;
  }
}
