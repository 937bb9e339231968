import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { useServedApi } from "./support/served-api.ts";
import { WorkflowSchema, type Workflow } from "../../packages/types/src/index.ts";
import { ApiClient, revisionConflict } from "../../apps/frontend/src/shared/api/client.ts";

const served = useServedApi();

const shout = (id: string, text = "hello"): Workflow =>
  WorkflowSchema.parse({
    id,
    name: "Shout",
    nodes: [
      { id: "t", type: "core:const-text", config: { value: text } },
      { id: "up", type: "core:text-transform", config: { case: "upper" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "t", sourceHandle: "value", target: "up", targetHandle: "text" },
      { id: "e2", source: "up", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  });

/** The editor's API client against the real server: typed results, the backend's own error codes and words. */
describe("ApiClient against the real backend", () => {
  it("creates, reads and updates with the revision check; a stale save is a REVISION_CONFLICT carrying what is stored", async () => {
    const created = await served.client.createWorkflow(shout("c1"));
    expect(created).toMatchObject({ ok: true, value: { id: "c1", revision: 1 } });
    const again = await served.client.createWorkflow(shout("c1"));
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error).toMatchObject({ code: "ALREADY_EXISTS", status: 409 });

    const theirs = await served.client.updateWorkflow({ ...shout("c1", "theirs"), name: "Theirs" }, 1);
    expect(theirs).toMatchObject({ ok: true, value: { revision: 2 } });
    const mine = await served.client.updateWorkflow({ ...shout("c1", "mine"), name: "Mine" }, 1);
    expect(mine.ok).toBe(false);
    if (mine.ok) return;
    expect(mine.error).toMatchObject({ code: "REVISION_CONFLICT", status: 409 });
    expect(mine.error.message.length).toBeGreaterThan(10);
    expect(revisionConflict(mine.error)).toMatchObject({ currentRevision: 2, current: { name: "Theirs" } });
    const stored = await served.client.getWorkflow("c1");
    expect(stored.ok && stored.value.workflow.name).toBe("Theirs");

    const list = await served.client.listWorkflows();
    expect(list.ok && list.value.map((w) => w.id)).toContain("c1");
  });

  it("surfaces NOT_FOUND, VALIDATION_FAILED and a dead server as typed errors", async () => {
    const missing = await served.client.getWorkflow("nope");
    expect(missing).toMatchObject({ ok: false, error: { code: "NOT_FOUND", status: 404 } });
    const bad = { ...shout("bad"), nodes: [{ ...shout("bad").nodes[0], id: "has space" }] };
    const invalid = await served.client.createWorkflow(bad);
    expect(invalid).toMatchObject({ ok: false, error: { status: 400 } });
    if (!invalid.ok) expect(["VALIDATION_FAILED", "INVALID_JSON"]).toContain(invalid.error.code);
    const dead = await new ApiClient("http://127.0.0.1:9").health();
    expect(dead).toMatchObject({ ok: false, error: { code: "NETWORK_ERROR", status: 0 } });
  });

  it("runs an unsaved draft, reads the run, its events and the history, and cancels", async () => {
    await served.client.createWorkflow(shout("r1"));
    const started = await served.client.startRun("r1", { workflow: shout("r1", "draft text") });
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const runId = started.value.runId;
    await poll(
      async () => {
        const r = await served.client.getRun(runId);
        return r.ok ? r.value.run.status : "error";
      },
      { timeout: 10_000 },
    ).toBe("completed");
    const run = await served.client.getRun(runId);
    expect(run.ok && run.value.run.outputs).toEqual({ text: "DRAFT TEXT" });
    expect(run.ok && run.value.observations.map((o) => o.nodeId).sort()).toEqual(["out", "t", "up"]);
    const events = await served.client.runEvents(runId, -1);
    expect(events.ok && events.value.map((e) => e.seq)).toEqual(events.ok ? events.value.map((_, i) => i) : []);
    expect(events.ok && events.value.at(-1)?.type).toBe("run.completed");
    const later = await served.client.runEvents(runId, 2);
    expect(later.ok && later.value[0].seq).toBe(3);
    const history = await served.client.listRuns("r1");
    expect(history.ok && history.value[0].id).toBe(runId);
    // Cancelling a run that already ended is refused, in the server's words.
    const cancelled = await served.client.cancelRun(runId);
    expect(cancelled).toMatchObject({ ok: false, error: { code: "CONFLICT", status: 409 } });

    // Run again: the version that run used (the draft), not the stored one.
    const again = await served.client.rerun(runId);
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    await poll(
      async () => {
        const r = await served.client.getRun(again.value.runId);
        return r.ok ? r.value.run.outputs : null;
      },
      { timeout: 10_000 },
    ).toEqual({ text: "DRAFT TEXT" });
  });
});
