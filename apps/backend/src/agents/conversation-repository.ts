import { Table } from "../storage/table.ts";
import type { SlotOf } from "../storage/prepared-query.ts";
import { num } from "../storage/row-values.ts";
import { ConversationSchema, type Conversation, type ConversationForkChanges, type ConversationForkOf, type ConversationMessage, type ConversationMode, type ConversationStore } from "@weft/types";
import { ConversationStoreError, validateMessages } from "@weft/agent-runtime";

interface ConversationsDb {
  conversations: { id: string; agent_id: string | null; fork_of: string | null; data: string; created_at: number; updated_at: number | string };
  conversation_messages: { conversation_id: string; seq: number; message_id: string; data: string };
}

function notFound(conversationId: string): ConversationStoreError {
  return new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
}

/** The conversation stored in `data`, updated at `updated_at` (an append sets only the column). */
function parseConversation(row: { data: string; updated_at: number | string }): Conversation {
  return ConversationSchema.parse({ ...JSON.parse(row.data), updatedAt: new Date(num(row.updated_at)).toISOString() });
}

/**
 * The runtime's conversation logs, plus the listings the API needs: one row per conversation, one per message, appended
 * in order. An append locks the conversation's row (PostgreSQL: its UPDATE of `updated_at`; SQLite's transactions run one at a time)
 * before numbering its messages, so two processes appending to one conversation number them one after the other.
 */
export class ConversationTable extends Table<ConversationsDb> implements ConversationStore {
  async create(input: { id?: string; title?: string; activeMode?: ConversationMode; agentId?: string }): Promise<Conversation> {
    return this.insert({ ...input, id: input.id ?? crypto.randomUUID() });
  }

  /** Creates a fork of `forkOf.conversationId` (see `conversation-fork.ts`); `exists` refusal as `create`. */
  async createFork(input: { id: string; title: string; agentId: string; forkOf: ConversationForkOf; forkChanges: ConversationForkChanges }): Promise<Conversation> {
    return this.insert({ ...input, activeMode: "agent" });
  }

  /** The forks of a conversation, oldest first (at most `limit`). */
  async listForks(conversationId: string, limit: number): Promise<Conversation[]> {
    const rows = await this.db.selectFrom("conversations").select(["data", "updated_at"]).where("fork_of", "=", conversationId).orderBy("created_at").orderBy("id").limit(limit).execute();
    return rows.map(parseConversation);
  }

  private async insert(input: Partial<Conversation> & { id: string }): Promise<Conversation> {
    const now = new Date();
    const conversation = ConversationSchema.parse({ ...input, createdAt: now.toISOString(), updatedAt: now.toISOString() });
    const row = {
      id: conversation.id,
      agent_id: conversation.agentId ?? null,
      fork_of: conversation.forkOf?.conversationId ?? null,
      data: JSON.stringify(conversation),
      created_at: now.getTime(),
      updated_at: now.getTime(),
    };
    if ((await this.upsertRows("conversations", ["id"], [row], "all")) === 0) throw new ConversationStoreError("CONVERSATION_EXISTS", `Conversation "${conversation.id}" already exists.`);
    return conversation;
  }

  async get(conversationId: string): Promise<Conversation | undefined> {
    const row = await this.db.selectFrom("conversations").select(["data", "updated_at"]).where("id", "=", conversationId).executeTakeFirst();
    return row ? parseConversation(row) : undefined;
  }

  async listByAgent(agentId: string, limit: number): Promise<Conversation[]> {
    const rows = await this.db.selectFrom("conversations").select(["data", "updated_at"]).where("agent_id", "=", agentId).orderBy("updated_at", "desc").limit(limit).execute();
    return rows.map(parseConversation);
  }

  /** Stores the mode with a new `updatedAt`, the conversation's row locked from its read on. */
  async setActiveMode(conversationId: string, mode: ConversationMode): Promise<Conversation> {
    return this.engine.transaction(async () => {
      const row = await this.db
        .selectFrom("conversations")
        .select(["data", "updated_at"])
        .where("id", "=", conversationId)
        .$if(this.engine.sql.engine === "postgres", (q) => q.forUpdate())
        .executeTakeFirst();
      if (!row) throw notFound(conversationId);
      const now = new Date();
      const next = { ...parseConversation(row), activeMode: mode, updatedAt: now.toISOString() };
      await this.db
        .updateTable("conversations")
        .set({ data: JSON.stringify(next), updated_at: now.getTime() })
        .where("id", "=", conversationId)
        .execute();
      return next;
    });
  }

  async append(conversationId: string, messages: readonly ConversationMessage[]): Promise<void> {
    // Stored ids are found by the unique index as the messages go in, not by a read before (ids twice in `messages` are refused here).
    const valid = validateMessages(conversationId, messages, new Set());
    await this.engine.transaction(async () => {
      // updated_at set in place locks the row (PostgreSQL) before the messages are numbered: an agent appends at every
      // step, and reading, parsing and rewriting the conversation's JSON each time cost ~0.1 ms of CPU a step.
      const touched = await this.hot.run("touch", (slot) => this.db.updateTable("conversations").set("updated_at", slot(0)).where("id", "=", slot(1)), [Date.now(), conversationId]);
      if (touched === 0) throw notFound(conversationId);
      const lastSeq = (slot: SlotOf) => this.db.selectFrom("conversation_messages").select(this.db.fn.max("seq").as("seq")).where("conversation_id", "=", slot(0));
      const [last] = await this.hot.rows("last seq", lastSeq, [conversationId]);
      const first = (last?.seq ?? -1) + 1;
      const rows = valid.map((m, n) => ({ conversation_id: conversationId, seq: first + n, message_id: m.id, data: this.redact(m) }));
      const inserted = await this.upsertRows("conversation_messages", ["conversation_id", "message_id"], rows, "all");
      if (inserted < rows.length) throw await this.duplicateOf(conversationId, rows);
    });
  }

  /** The refusal of an append of `rows` (rolled back by it), one of whose ids was stored before them. */
  private async duplicateOf(conversationId: string, rows: ReadonlyArray<{ seq: number; message_id: string }>): Promise<ConversationStoreError> {
    const ids = rows.map((r) => r.message_id);
    const taken = await this.db
      .selectFrom("conversation_messages")
      .select("message_id")
      .where("conversation_id", "=", conversationId)
      .where("message_id", "in", ids)
      .where("seq", "<", rows[0].seq)
      .executeTakeFirstOrThrow();
    return new ConversationStoreError("DUPLICATE_MESSAGE_ID", `Message id "${taken.message_id}" already exists in conversation "${conversationId}". Nothing was appended.`);
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    if (!(await this.get(conversationId))) throw notFound(conversationId);
    return (await this.messagesAfter(conversationId, -1)).map((m) => m.message);
  }

  /** The messages numbered after `afterSeq` (messages are numbered from 0 and never change), with their numbers. */
  async messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>> {
    const query = (slot: SlotOf) => this.db.selectFrom("conversation_messages").select(["seq", "data"]).where("conversation_id", "=", slot(0)).where("seq", ">", slot(1)).orderBy("seq");
    const rows = await this.hot.rows("messages after", query, [conversationId, afterSeq]);
    return rows.map((r) => ({ seq: r.seq, message: JSON.parse(r.data) as ConversationMessage }));
  }
}
