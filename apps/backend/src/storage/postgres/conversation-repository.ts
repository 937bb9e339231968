import { ConversationSchema, type Conversation, type ConversationMessage, type ConversationMode, type SecretRedactor } from "@weft/types";
import { ConversationStoreError, validateMessages } from "@weft/agent-runtime";
import type { ConversationRepository } from "../conversation-repository.ts";
import type { PostgresConnection } from "./connection.ts";

/**
 * Conversation logs in PostgreSQL. An append locks the conversation's row (`FOR UPDATE`) before
 * numbering its messages, so two processes appending to one conversation number them one after the other.
 */
export class PostgresConversationRepository implements ConversationRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async create(input: { id?: string; title?: string; activeMode?: ConversationMode; agentId?: string }): Promise<Conversation> {
    const id = input.id ?? crypto.randomUUID();
    const now = new Date();
    const conversation = ConversationSchema.parse({ ...input, id, createdAt: now.toISOString(), updatedAt: now.toISOString() });
    const result = await this.pg
      .current()
      .unsafe("INSERT INTO conversations (id, agent_id, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING", [
        id,
        conversation.agentId ?? null,
        JSON.stringify(conversation),
        now.getTime(),
        now.getTime(),
      ]);
    if (result.count === 0) throw new ConversationStoreError("CONVERSATION_EXISTS", `Conversation "${id}" already exists.`);
    return conversation;
  }

  async get(conversationId: string): Promise<Conversation | undefined> {
    const [row] = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM conversations WHERE id = $1", [conversationId]);
    return row ? ConversationSchema.parse(JSON.parse(row.data)) : undefined;
  }

  async listByAgent(agentId: string, limit: number): Promise<Conversation[]> {
    const rows = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM conversations WHERE agent_id = $1 ORDER BY updated_at DESC LIMIT $2", [agentId, limit]);
    return rows.map((r) => ConversationSchema.parse(JSON.parse(r.data)));
  }

  async setActiveMode(conversationId: string, mode: ConversationMode): Promise<Conversation> {
    return await this.pg.transaction(async () => {
      const current = await this.lock(conversationId);
      const now = new Date();
      const next = { ...current, activeMode: mode, updatedAt: now.toISOString() };
      await this.pg.current().unsafe("UPDATE conversations SET data = $1, updated_at = $2 WHERE id = $3", [JSON.stringify(next), now.getTime(), conversationId]);
      return next;
    });
  }

  async append(conversationId: string, messages: readonly ConversationMessage[]): Promise<void> {
    await this.pg.transaction(async () => {
      const current = await this.lock(conversationId);
      const sql = this.pg.current();
      const ids = messages.map((m) => (typeof m === "object" && m !== null && typeof m.id === "string" ? m.id : ""));
      const taken = await sql.unsafe<{ message_id: string }[]>(
        "SELECT message_id FROM conversation_messages WHERE conversation_id = $1 AND message_id IN (SELECT jsonb_array_elements_text($2::text::jsonb))",
        [conversationId, JSON.stringify(ids)],
      );
      const valid = validateMessages(conversationId, messages, new Set(taken.map((r) => r.message_id)));
      const [last] = await sql.unsafe<{ seq: number | null }[]>("SELECT max(seq) AS seq FROM conversation_messages WHERE conversation_id = $1", [conversationId]);
      let seq = (last?.seq ?? -1) + 1;
      const rows = valid.map((m) => ({ conversation_id: conversationId, seq: seq++, message_id: m.id, data: this.redactor.json(JSON.stringify(m)) }));
      if (rows.length > 0) await sql`INSERT INTO conversation_messages ${sql(rows)}`;
      const now = new Date();
      await sql.unsafe("UPDATE conversations SET data = $1, updated_at = $2 WHERE id = $3", [JSON.stringify({ ...current, updatedAt: now.toISOString() }), now.getTime(), conversationId]);
    });
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    await this.require(conversationId);
    const rows = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq", [conversationId]);
    return rows.map((r) => JSON.parse(r.data) as ConversationMessage);
  }

  async messagesAfter(conversationId: string, afterSeq: number): Promise<Array<{ seq: number; message: ConversationMessage }>> {
    const rows = await this.pg
      .current()
      .unsafe<{ seq: number; data: string }[]>("SELECT seq, data FROM conversation_messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq", [conversationId, afterSeq]);
    return rows.map((r) => ({ seq: r.seq, message: JSON.parse(r.data) as ConversationMessage }));
  }

  /** The conversation, its row locked until the surrounding transaction ends. */
  private async lock(conversationId: string): Promise<Conversation> {
    const [row] = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM conversations WHERE id = $1 FOR UPDATE", [conversationId]);
    if (!row) throw new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
    return ConversationSchema.parse(JSON.parse(row.data));
  }

  private async require(conversationId: string): Promise<Conversation> {
    const conversation = await this.get(conversationId);
    if (!conversation) throw new ConversationStoreError("CONVERSATION_NOT_FOUND", `No conversation "${conversationId}".`);
    return conversation;
  }
}
