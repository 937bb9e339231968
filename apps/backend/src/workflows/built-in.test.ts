import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { WorkflowSchema, WorkflowSummarySchema } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, templateWorkflow, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const WorkflowAnswer = z.object({ workflow: WorkflowSchema, builtIn: z.literal(true).optional() });
const WorkflowList = z.object({ workflows: z.array(WorkflowSummarySchema) });
const REPO_EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

/**
 * The default deliberation workflow is what every agent without its own runs: no role may change or
 * delete it (by the API); it is duplicated to be changed. Checked by effect: the stored document.
 */
describe("built-in workflows", () => {
  let t: TestServer;
  let editor: TestUser;
  const stored = async () => WorkflowAnswer.parse((await t.call("GET", "/api/workflows/agent-deliberation")).body);

  beforeAll(async () => {
    t = await startTestServer({ examplesDir: REPO_EXAMPLES });
    editor = await createTestUser(t, "ed", "editor");
  });
  afterAll(() => t.stop());

  it("are marked in the list and in the answer; examples are marked as examples", async () => {
    const list = WorkflowList.parse((await t.call("GET", "/api/workflows")).body).workflows;
    expect(list.find((w) => w.id === "agent-deliberation")?.origin).toBe("built-in");
    expect(list.find((w) => w.id === "map-summaries")?.origin).toBe("example");
    expect((await stored()).builtIn).toBe(true);
  });

  it("refuses an owner's and an editor's change with BUILT_IN, the stored workflow unchanged", async () => {
    const before = (await stored()).workflow;
    const changed = { ...before, name: "Hijacked", nodes: [] };
    const asOwner = await t.call("PUT", "/api/workflows/agent-deliberation", { workflow: changed, baseRevision: before.revision });
    const asEditor = await editor.call("PUT", "/api/workflows/agent-deliberation", { workflow: changed, baseRevision: before.revision });
    for (const answer of [asOwner, asEditor]) {
      expect(answer.status).toBe(403);
      const error = ErrorBodySchema.parse(answer.body).error;
      expect(error.code).toBe("BUILT_IN");
      expect(error.message).toContain("/duplicate");
    }
    expect((await stored()).workflow).toEqual(before);
  });

  it("refuses deleting it, for every role; it is still there", async () => {
    const before = (await stored()).workflow;
    for (const answer of [await t.call("DELETE", "/api/workflows/agent-deliberation"), await editor.call("DELETE", "/api/workflows/agent-deliberation")]) {
      expect(answer.status).toBe(403);
      expect(ErrorBodySchema.parse(answer.body).error.code).toBe("BUILT_IN");
    }
    expect((await stored()).workflow).toEqual(before);
  });

  it("lets it be duplicated: the copy is the user's own, changed and deleted freely", async () => {
    const copy = await editor.call("POST", "/api/workflows/agent-deliberation/duplicate", {});
    expect(copy.status).toBe(201);
    const doc = WorkflowAnswer.parse(copy.body).workflow;
    expect(doc.id).not.toBe("agent-deliberation");
    expect(doc.name).toBe("Agent deliberation (default) (copy)");
    const again = WorkflowAnswer.parse((await editor.call("GET", `/api/workflows/${doc.id}`)).body);
    expect(again.builtIn).toBeUndefined();
    expect((await editor.call("PUT", `/api/workflows/${doc.id}`, { workflow: { ...doc, name: "Mine" }, baseRevision: doc.revision })).status).toBe(200);
    expect((await editor.call("DELETE", `/api/workflows/${doc.id}`)).status).toBe(200);
  });

  it("are only the shipped ones: a workflow made later under that id on an installation without it is editable", async () => {
    const bare = await startTestServer({ examplesDir: tempDir("weft-examples-") });
    try {
      const created = await bare.call("POST", "/api/workflows", { workflow: { ...templateWorkflow("agent-deliberation") } });
      expect(created.status).toBe(201);
      const doc = WorkflowAnswer.parse(created.body).workflow;
      expect((await bare.call("PUT", "/api/workflows/agent-deliberation", { workflow: { ...doc, name: "Mine" }, baseRevision: doc.revision })).status).toBe(200);
    } finally {
      await bare.stop();
    }
  });
});
