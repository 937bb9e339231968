import { afterEach, describe, expect, it } from "vitest";
import { conversationHistory, userMessage } from "@weft/agent-runtime";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import { MIGRATIONS } from "../schema.ts";

const say = (text: string) => userMessage(text, { mode: "agent" });

describe("an agent's conversation read step by step from SQLite", () => {
  const open: Storage[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
    for (const d of dirs.splice(0)) removeDir(d);
  });

  it("equals the whole log after every append, those of another connection to the file included", async () => {
    const dir = tempDir("weft-history-");
    dirs.push(dir);
    const mine = await openSqliteStorage(dir, undefined, MIGRATIONS);
    const other = await openSqliteStorage(dir, undefined, MIGRATIONS);
    open.push(mine, other);
    await mine.conversations.create({ id: "c", activeMode: "agent" });
    await mine.conversations.append("c", [say("one")]);
    expect((await conversationHistory(mine.conversations, "c")).map((m) => m.content)).toEqual(["one"]);

    await other.conversations.append("c", [say("two"), say("three")]);
    await mine.conversations.append("c", [say("four")]);
    const history = await conversationHistory(mine.conversations, "c");
    expect(history).toEqual(await mine.conversations.messages("c"));
    expect(history.map((m) => m.content)).toEqual(["one", "two", "three", "four"]);
  });

  it("fails for a conversation that does not exist, as the store does", async () => {
    const dir = tempDir("weft-history-");
    dirs.push(dir);
    const storage = await openSqliteStorage(dir, undefined, MIGRATIONS);
    open.push(storage);
    await expect(conversationHistory(storage.conversations, "missing")).rejects.toMatchObject({ code: "CONVERSATION_NOT_FOUND" });
  });
});
