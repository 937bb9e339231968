import { afterEach, describe, expect, it } from "vitest";
import { workflowInterface, WorkflowSchema } from "@weft/types";
import { StoredRecordInvalidError } from "../storage/document-table.ts";
import { openSqliteStorage, requireSqlite, type Storage } from "../testing/storage.ts";
import { skill, summariesOfWholeDocuments, workflow } from "../testing/storage-contract/harness.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

const storages: Storage[] = [];
afterEach(async () => {
  for (const s of storages.splice(0)) await s.close();
});

async function open() {
  const dir = tempDir();
  dirs.push(dir);
  const storage = await openSqliteStorage(dir);
  storages.push(storage);
  return { db: requireSqlite(storage.sql, "test").db, repo: storage.workflows };
}

describe("workflow summaries", () => {
  it("match the whole stored documents, in the list's order", async () => {
    const { repo } = await open();
    await repo.create(skill("b-skill", "beta", 40));
    await repo.create(workflow({ id: "a-plain", name: "Alpha", nodes: [{ id: "x", type: "core:text-transform" }] }));
    await repo.create(workflow({ id: "empty", name: "gamma", nodes: [] }));
    const summaries = (await repo.summaries()).items;
    expect(summaries.map((s) => s.id)).toEqual(["a-plain", "b-skill", "empty"]);
    expect(summaries).toEqual(await summariesOfWholeDocuments(repo));
    expect(summaries[1]).toMatchObject({ nodeCount: 42, isSkill: true, description: "beta described", tags: ["a"] });
    expect(summaries[1].interface.inputs.map((p) => p.name)).toEqual(["topic"]);
    expect(summaries[1].interface.outputs.map((p) => p.name)).toEqual(["text"]);
    expect(summaries[0]).toMatchObject({ nodeCount: 1, isSkill: false, interface: { inputs: [], outputs: [] } });
  });

  it("follow updates, renames, writes at a given revision and deletes", async () => {
    const { repo } = await open();
    await repo.create(skill("s", "First name", 3));
    const stored = (await repo.get("s"))!.document;
    // Renamed, one node fewer, and no longer a skill.
    const renamed = { ...stored, name: "Second name", nodes: stored.nodes.filter((n) => n.type !== "core:workflow-output").slice(1) };
    expect((await repo.update(renamed, 1)).kind).toBe("updated");
    expect((await repo.summaries()).items).toMatchObject([{ id: "s", name: "Second name", revision: 2, nodeCount: 3, isSkill: false }]);
    await repo.put({ ...renamed, name: "Third name" }, 7);
    expect((await repo.summaries()).items).toMatchObject([{ id: "s", name: "Third name", revision: 7 }]);
    expect((await repo.summaries()).items).toEqual(await summariesOfWholeDocuments(repo));
    await repo.delete("s");
    expect((await repo.summaries()).items).toEqual([]);
  });

  it("fill in the summary columns of a row stored before they existed, once", async () => {
    const { db, repo } = await open();
    const old = { ...skill("older", "Older", 2), revision: 1 };
    db.query("INSERT INTO workflows (id, name, revision, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").run("older", "Older", 1, JSON.stringify(old), 1, 2);
    const first = (await repo.summaries()).items;
    expect(first).toEqual(await summariesOfWholeDocuments(repo));
    expect(db.query("SELECT node_count, is_skill FROM workflows WHERE id = 'older'").get()).toEqual({ node_count: 4, is_skill: 1 });
    expect((await repo.summaries()).items).toEqual(first);
  });

  it("apply the schema's defaults to fields an older record does not have", async () => {
    const { db, repo } = await open();
    const old = { id: "old", name: "Old", revision: 3, nodes: [{ id: "n", type: "core:workflow-input", config: { name: "q", portType: "string" } }] };
    db.query("INSERT INTO workflows (id, name, revision, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").run("old", "Old", 3, JSON.stringify(old), 1, 2);
    expect((await repo.summaries()).items).toEqual([
      { id: "old", name: "Old", description: "", revision: 3, tags: [], nodeCount: 1, updatedAt: 2, isSkill: true, interface: workflowInterface(WorkflowSchema.parse(old)) },
    ]);
  });

  it("leave out and report stored records that do not read, listing the others", async () => {
    const { db, repo } = await open();
    await repo.create(skill("fine", "Fine", 1));
    const insert = db.query("INSERT INTO workflows (id, name, revision, data, created_at, updated_at) VALUES (?, ?, 1, ?, 1, 1)");
    insert.run("broken", "Broken", "{not json");
    insert.run("nameless", "Nameless", JSON.stringify({ id: "nameless", nodes: [] }));
    insert.run("no-nodes", "No nodes", JSON.stringify({ id: "no-nodes", name: "No nodes" }));
    // Valid JSON, but deeper than SQLite's JSON functions read: the list neither fails on it nor leaves it out (it decodes, as a full read does).
    const deep = '{"a":'.repeat(1500) + "1" + "}".repeat(1500);
    insert.run("deep", "Deep", JSON.stringify({ id: "deep", name: "Deep", nodes: [] }).replace('"nodes":[]', `"nodes":[],"x":${deep}`));

    const { items, skipped } = await repo.summaries();
    expect(items.map((s) => s.id)).toEqual(["deep", "fine"]);
    expect(skipped.map((s) => s.id).sort()).toEqual(["broken", "nameless", "no-nodes"]);
    for (const s of skipped) expect(s).toMatchObject({ code: "STORED_RECORD_INVALID", message: expect.stringContaining(`"${s.id}"`) });

    const whole = await repo.list();
    expect(whole.items.map((r) => r.document.id).sort()).toEqual(["deep", "fine"]);
    expect(whole.skipped.map((s) => s.id).sort()).toEqual(["broken", "nameless", "no-nodes"]);
    await expect(repo.get("broken")).rejects.toThrow(StoredRecordInvalidError);
  });
});

describe("reading a workflow again", () => {
  it("gives a fresh copy each time, and checks a text another writer changed underneath afresh", async () => {
    const { db, repo } = await open();
    await repo.create(skill("s", "Skill", 3));
    const first = (await repo.get("s"))!.document;
    first.nodes.splice(0);
    first.name = "changed by a caller";
    const second = (await repo.get("s"))!.document;
    expect(second.name).toBe("Skill");
    expect(second.nodes.length).toBe(5);
    expect(second).toEqual(WorkflowSchema.parse(JSON.parse((db.query("SELECT data FROM workflows WHERE id = 's'").get() as { data: string }).data)));

    // Another process's write of the same revision: a different text, so it is read and checked again.
    db.query("UPDATE workflows SET data = ? WHERE id = 's'").run(JSON.stringify({ ...second, name: "Written elsewhere" }));
    expect((await repo.get("s"))!.document.name).toBe("Written elsewhere");
    db.query("UPDATE workflows SET data = ? WHERE id = 's'").run(JSON.stringify({ id: "s", nodes: [] }));
    await expect(repo.get("s")).rejects.toThrow(StoredRecordInvalidError);
  });
});
