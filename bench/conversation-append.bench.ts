/**
 * `bun bench/conversation-append.bench.ts`: an agent step's conversation writes alone, on SQLite, outside the
 * scene bench's noise: 5 conversations, each appended 3 messages at a time (an agent step's assistant message and
 * observations) then read from the step before (`messagesAfter`, as the conversation history reads each step).
 * Prints one JSON line: CPU µs per append and per read, over 360 rounds after 40 of warm-up.
 * 2026-12-01, 3 rounds at load 7.4–7.6 of main before this change / e5dc891 (hand-written SQL, before Kysely) / after
 * (append sets updated_at in place, finds stored ids by the unique index, prepares its numbering and messagesAfter):
 * append 439 / 139 / 192, 527 / 129 / 223, 507 / 155 / 184 µs; messagesAfter 210 / 64 / 73, 164 / 67 / 84, 128 / 65 / 79 µs.
 */
import type { ConversationMessage } from "../packages/types/src/index.ts";
import { openSqliteStorage } from "../apps/backend/src/testing/storage.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/test-server.ts";

const CONVERSATIONS = ["a", "b", "c", "d", "e"];
const WARM_UP = 40;
const ROUNDS = 360;

const message = (id: string, role: "user" | "assistant"): ConversationMessage => ({ id, role, content: `${id} `.padEnd(600, "x"), createdAt: new Date().toISOString() });

/** CPU µs spent in `work` (this process, user and system). */
async function cpuOf(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(start);
  return spent.user + spent.system;
}

const dir = tempDir("weft-conversation-append-bench-");
const storage = await openSqliteStorage(dir);
try {
  for (const id of CONVERSATIONS) await storage.conversations.create({ id, agentId: "agent", activeMode: "agent" });
  const lastSeq = new Map<string, number>();
  let appended = 0;
  const rounds = async (count: number) => {
    let append = 0;
    let read = 0;
    for (let i = 0; i < count; i++)
      for (const id of CONVERSATIONS) {
        const n = appended++;
        append += await cpuOf(() => storage.conversations.append(id, [message(`${n}-1`, "assistant"), message(`${n}-2`, "user"), message(`${n}-3`, "user")]));
        const before = lastSeq.get(id) ?? -1;
        lastSeq.set(id, before + 3);
        read += await cpuOf(() => storage.conversations.messagesAfter(id, before));
      }
    const steps = count * CONVERSATIONS.length;
    return { append_cpu_us: Math.round(append / steps), messages_after_cpu_us: Math.round(read / steps) };
  };
  await rounds(WARM_UP);
  console.log(JSON.stringify({ bench: "conversation-append", conversations: CONVERSATIONS.length, appends: ROUNDS * CONVERSATIONS.length, ...(await rounds(ROUNDS)) }));
} finally {
  await storage.close();
  removeDir(dir);
}
