// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WorkflowAnswerSchema } from "../../apps/backend/src/testing/answers.ts";
import { freshPinia } from "../../apps/frontend/src/shared/testing/fresh-pinia.ts";
import { useUiStore } from "../../apps/frontend/src/shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../apps/frontend/src/shared/workflow/workflows-store.ts";
import { startPageServer, type PageServer } from "./support/page-server.ts";

let page: PageServer;
beforeAll(async () => {
  page = await startPageServer();
}, 30_000);
afterAll(() => page?.stop());
beforeEach(() => {
  localStorage.clear();
  freshPinia();
});

/** The workflow as the server stored it (GET /api/workflows/:id), read through the shared schema. */
const stored = async (id: string) => WorkflowAnswerSchema.parse((await page.server.call("GET", `/api/workflows/${id}`)).body).workflow;

/** Saves a never-saved tab, answering the name the first save asks for (null: Cancel). */
async function saveNew(workflows: ReturnType<typeof useWorkflowsStore>, name: string | null, tabId?: string): Promise<boolean> {
  const saving = workflows.save(tabId);
  const asked = useUiStore().promptRequest;
  if (!asked) throw new Error("the first save did not ask for a name");
  asked.resolve(name);
  return saving;
}

describe("workflows store against the real server", () => {
  it("creates a tab, records edits for undo and redo, and saves it as revision 1", async () => {
    const workflows = useWorkflowsStore();
    const tab = workflows.create("Store test");
    expect(workflows.isDirty(tab)).toBe(true);
    workflows.exec({ kind: "update-meta", patch: { description: "first" } }, "Describe");
    workflows.exec({ kind: "update-meta", patch: { description: "second" } }, "Describe again");
    expect(workflows.undo()?.label).toBe("Describe again");
    expect(workflows.active?.doc.description).toBe("first");
    expect(workflows.redo()?.label).toBe("Describe again");
    expect(await saveNew(workflows, "Store test")).toBe(true);
    expect(workflows.isDirty(workflows.active!)).toBe(false);
    expect(await stored(tab.id)).toMatchObject({ name: "Store test", description: "second", revision: 1 });
  });

  it("keeps a conflict on the tab and overwrites nothing when another editor saved first; 'theirs' takes the stored one", async () => {
    const mine = useWorkflowsStore();
    const tab = mine.create("Shared");
    await saveNew(mine, "Shared");
    // Another browser (its own pinia) saves the same workflow first.
    freshPinia();
    const theirs = useWorkflowsStore();
    await theirs.open(tab.id);
    theirs.exec({ kind: "update-meta", patch: { description: "theirs" } }, "Theirs");
    expect(await theirs.save()).toBe(true);

    mine.exec({ kind: "update-meta", patch: { description: "mine" } }, "Mine", { tabId: tab.id });
    expect(await mine.save(tab.id)).toBe(false);
    expect(mine.tab(tab.id)?.conflict?.currentRevision).toBe(2);
    expect(await stored(tab.id)).toMatchObject({ description: "theirs", revision: 2 });
    await mine.resolveConflict(tab.id, "theirs");
    expect(mine.tab(tab.id)?.doc.description).toBe("theirs");
    expect(mine.isDirty(mine.tab(tab.id)!)).toBe(false);
  });

  it("remembers the open tabs of a visit and reopens them in a new page", async () => {
    const first = useWorkflowsStore();
    const a = first.create("Alpha");
    await saveNew(first, "Alpha", a.id);
    first.rememberTabs();
    freshPinia();
    const again = useWorkflowsStore();
    expect(again.remembersTabs()).toBe(true);
    await again.restore();
    expect(again.tabs.map((t) => t.doc.name)).toEqual(["Alpha"]);
  });
});

describe("a new workflow's id", () => {
  it("follows the name it has at its first save, and never changes after", async () => {
    const workflows = useWorkflowsStore();
    const firstId = workflows.create().id;
    expect(firstId).toMatch(/^untitled-workflow-/);
    workflows.exec({ kind: "update-meta", patch: { name: "Weekly report" } }, "Rename");
    expect(await saveNew(workflows, "Weekly report")).toBe(true);
    const id = workflows.active!.id;
    expect(id).toMatch(/^weekly-report-[a-z0-9]+$/);
    expect(workflows.active!.doc.id).toBe(id);
    expect(await stored(id)).toMatchObject({ name: "Weekly report", revision: 1 });
    expect((await page.server.call("GET", `/api/workflows/${firstId}`)).status).toBe(404);
    // The undo history came along with the tab.
    expect(workflows.undo()?.label).toBe("Rename");
    workflows.exec({ kind: "update-meta", patch: { name: "Monthly report" } }, "Rename again");
    expect(await workflows.save()).toBe(true);
    expect(workflows.active!.id).toBe(id);
  });
});

describe("the first save of a new workflow", () => {
  it("asks for a name: the name given is the one stored; Cancel stores nothing", async () => {
    const workflows = useWorkflowsStore();
    const ui = useUiStore();
    const tab = workflows.create();
    const draftId = tab.id;

    expect(await saveNew(workflows, null)).toBe(false);
    expect(workflows.active!.saved).toBeNull();
    expect((await page.server.call("GET", `/api/workflows/${draftId}`)).status).toBe(404);

    const saving = workflows.save();
    const asked = ui.promptRequest!;
    // The default name is not offered: an empty name is refused with a reason.
    expect(asked.value).toBe("");
    expect(asked.check?.("  ")).toBe("Give the workflow a name.");
    asked.resolve("Invoice checker");
    expect(await saving).toBe(true);
    const id = workflows.active!.id;
    expect(id).toMatch(/^invoice-checker-[a-z0-9]+$/);
    expect(await stored(id)).toMatchObject({ name: "Invoice checker", revision: 1 });
    expect((await page.server.call("GET", `/api/workflows/${draftId}`)).status).toBe(404);

    // Saved once, it is saved again without asking.
    workflows.exec({ kind: "update-meta", patch: { description: "checks invoices" } }, "Describe");
    expect(await workflows.save()).toBe(true);
    expect(ui.promptRequest).toBeNull();
  });
});
