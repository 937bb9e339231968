import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ObservationSchema, RunStatusSchema } from "@weft/types";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { call } from "../testing/http-call.ts";
import { CreatedTokenSchema, signInWithPassword } from "../testing/users.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { until } from "../testing/until.ts";
import { startHitCounter } from "../testing/hit-counter.ts";

/** The side effects of the workflows' nodes, counted by path. */
const listener = startHitCounter({ amount: 42 });
const origin = listener.origin;
const count = (path: string) => listener.count(path);

const children: ChildServer[] = [];
afterAll(async () => {
  for (const child of children) {
    child.proc.kill("SIGKILL");
    await child.proc.exited;
  }
  await listener.stop();
});

const ApprovalView = z.object({
  id: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  status: z.enum(["pending", "decided", "closed"]),
  request: z.object({ question: z.string(), data: z.unknown(), role: z.string() }),
  decision: z.string().optional(),
  decidedBy: z.string().optional(),
  canDecide: z.boolean(),
});
const ApprovalList = z.object({ approvals: z.array(ApprovalView) });
const RunAnswer = z.object({ run: z.object({ status: RunStatusSchema }), observations: z.array(ObservationSchema) });
const Started = z.object({ runId: z.string() });

/**
 * up (a request to the listener) → gate (core:approval) → approved: a request to /<label>/approved, rejected: a request
 * to /<label>/rejected. Each side effect is counted by path, so a branch that runs (or an upstream node run again) shows.
 */
function gatedWorkflow(label: string, gate: Record<string, unknown>) {
  const request = (id: string, path: string, method = "GET") => ({ id, type: "http:request", inputs: { url: `${origin}/${label}/${path}`, method, retries: 0 } });
  return {
    id: label,
    name: label,
    nodes: [request("up", "upstream"), { id: "gate", type: "core:approval", config: gate }, request("yes", "approved", "POST"), request("no", "rejected", "POST")],
    edges: [
      { id: "e1", source: "up", sourceHandle: "body", target: "gate", targetHandle: "data" },
      { id: "e2", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "body" },
      { id: "e3", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "body" },
    ],
  };
}

async function start(child: ChildServer, workflowId: string): Promise<string> {
  const started = await child.call("POST", `/api/workflows/${workflowId}/runs`, {});
  expect(started.status).toBe(202);
  return Started.parse(started.body).runId;
}

async function runOf(child: ChildServer, runId: string) {
  return RunAnswer.parse((await child.call("GET", `/api/runs/${runId}`)).body);
}

const statusIs = (child: ChildServer, runId: string, status: string) => async () => ((await runOf(child, runId)).run.status === status ? true : undefined);

async function approvalOf(child: ChildServer, runId: string) {
  const list = ApprovalList.parse((await child.call("GET", `/api/approvals?runId=${runId}`)).body).approvals;
  expect(list).toHaveLength(1);
  return list[0]!;
}

/** A user of `role`, signed in with a personal token: `call` acts as them. */
async function userOf(child: ChildServer, username: string, role: "viewer" | "editor") {
  const password = `pw-${username}-long-enough`;
  expect((await child.call("POST", "/api/users", { username, role, password })).status).toBe(201);
  const session = await signInWithPassword(child.url, username, password);
  if (!session) throw new Error(`${username} could not sign in`);
  const token = CreatedTokenSchema.parse((await call(child.url, "POST", "/api/auth/tokens", { name: "test" }, session)).body).secret;
  return (method: string, path: string, body?: unknown) => call(child.url, method, path, body, { authorization: `Bearer ${token}` });
}

async function serve(dataDir: string): Promise<ChildServer> {
  const child = await spawnServer(dataDir, { WEFT_DEMO_LLM: "off", WEFT_APPROVAL_SWEEP_MS: "200" });
  children.push(child);
  return child;
}

describe("approvals that wait durably (a real server, killed and started again)", () => {
  const dataDir = tempDir("weft-approvals-");
  let child: ChildServer;

  it("a waiting run survives SIGKILL; approving resumes it: the approved branch runs, the rejected never does, upstream does not run again", async () => {
    child = await serve(dataDir);
    expect((await child.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${origin}/**` }] })).status).toBe(200);
    for (const [label, gate] of [
      ["refund", { question: "Send this refund?" }],
      ["timed", { question: "Go on?", timeoutSeconds: 1, defaultDecision: "rejected" }],
      ["owners", { question: "Owners only: deploy?", role: "owner" }],
    ] as const) {
      const saved = await child.call("POST", "/api/workflows", { workflow: gatedWorkflow(label, gate) });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    }
    const runId = await start(child, "refund");
    await until("the run to wait", statusIs(child, runId, "waiting"));
    expect(count("/refund/upstream")).toBe(1);
    const pending = await approvalOf(child, runId);
    expect(pending).toMatchObject({ nodeId: "gate", status: "pending", canDecide: true, request: { question: "Send this refund?", data: { amount: 42 } } });

    child.proc.kill("SIGKILL");
    await child.proc.exited;
    child = await serve(dataDir);

    expect((await runOf(child, runId)).run.status).toBe("waiting");
    const inbox = ApprovalList.parse((await child.call("GET", "/api/approvals")).body).approvals;
    expect(inbox.map((a) => a.id)).toContain(pending.id);

    const decided = await child.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "approved", comment: "fine" });
    expect(decided.status).toBe(200);
    await until("the resumed run to complete", statusIs(child, runId, "completed"));
    expect(count("/refund/approved")).toBe(1);
    expect(count("/refund/rejected")).toBe(0);
    expect(count("/refund/upstream")).toBe(1);
    const { observations } = await runOf(child, runId);
    const byId = new Map(observations.map((o) => [o.nodeId, o]));
    expect(byId.get("gate")?.outputs.decision).toMatchObject({ decision: "approved", decidedBy: "owner", comment: "fine" });
    expect(byId.get("no")).toMatchObject({ status: "skipped" });
    expect(byId.get("no")?.skipReason).toContain('"gate" gave no "rejected" output');

    // Deciding again changes nothing: 409, and no branch runs a second time.
    const again = await child.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "rejected" });
    expect(again.status).toBe(409);
    expect((await approvalOf(child, runId)).decision).toBe("approved");
    expect(count("/refund/rejected")).toBe(0);
    expect(count("/refund/approved")).toBe(1);
  });

  it("cancelling a waiting run ends it and closes its approval: deciding it then runs nothing", async () => {
    const before = count("/refund/approved") + count("/refund/rejected");
    const runId = await start(child, "refund");
    await until("the run to wait", statusIs(child, runId, "waiting"));
    expect((await child.call("POST", `/api/runs/${runId}/cancel`)).status).toBe(200);
    expect((await runOf(child, runId)).run.status).toBe("cancelled");
    const closed = await approvalOf(child, runId);
    expect(closed.status).toBe("closed");
    expect((await child.call("POST", `/api/approvals/${closed.id}/decision`, { decision: "approved" })).status).toBe(409);
    expect((await runOf(child, runId)).run.status).toBe("cancelled");
    expect(count("/refund/approved") + count("/refund/rejected")).toBe(before);
  });

  it("a timeout takes the default branch", async () => {
    const runId = await start(child, "timed");
    await until("the timed-out run to complete", statusIs(child, runId, "completed"));
    expect(count("/timed/rejected")).toBe(1);
    expect(count("/timed/approved")).toBe(0);
    expect(await approvalOf(child, runId)).toMatchObject({ status: "decided", decision: "rejected", decidedBy: "timeout" });
  });

  it("a viewer cannot decide, nor an editor where the node asks owners; a tampered or reused signed link decides nothing", async () => {
    const viewer = await userOf(child, "vera", "viewer");
    const editor = await userOf(child, "eddie", "editor");
    const refundRun = await start(child, "refund");
    await until("the refund run to wait", statusIs(child, refundRun, "waiting"));
    const refund = await approvalOf(child, refundRun);
    expect((await viewer("POST", `/api/approvals/${refund.id}/decision`, { decision: "approved" })).status).toBe(403);
    expect(ApprovalList.parse((await viewer("GET", "/api/approvals")).body).approvals).toEqual([]);

    const ownersRun = await start(child, "owners");
    await until("the owners' run to wait", statusIs(child, ownersRun, "waiting"));
    const owners = await approvalOf(child, ownersRun);
    expect((await editor("POST", `/api/approvals/${owners.id}/decision`, { decision: "approved" })).status).toBe(403);
    expect((await editor("POST", `/api/approvals/${owners.id}/link`, {})).status).toBe(403);
    expect(ApprovalList.parse((await editor("GET", "/api/approvals")).body).approvals.map((a) => a.id)).toEqual([refund.id]);

    const made = await child.call("POST", `/api/approvals/${owners.id}/link`, {});
    expect(made.status).toBe(200);
    const { token, decisionUrl, pageUrl } = z.object({ token: z.string(), decisionUrl: z.string(), pageUrl: z.string() }).parse(made.body);
    expect(decisionUrl).toBe(`${child.url}/api/approval-links/decision`);
    expect(pageUrl).toBe(`${child.url}/approve.html#${token}`);
    const [claim, signature] = token.split(".") as [string, string];
    // The same signature on a claim naming another approval, and a changed signature: neither decides.
    const otherClaim = Buffer.from(JSON.stringify({ ...(JSON.parse(Buffer.from(claim, "base64url").toString()) as object), a: refund.id })).toString("base64url");
    const flipped = `${claim}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    for (const forged of [`${otherClaim}.${signature}`, flipped]) {
      const refused = await call(child.url, "POST", "/api/approval-links/decision", { token: forged, decision: "approved" });
      expect(refused.status).toBe(400);
      // Nor does a forged link show the other approval's question and data.
      expect((await call(child.url, "POST", "/api/approval-links/view", { token: forged })).status).toBe(400);
    }
    // The real link shows what to review (without a session), and viewing it decides nothing.
    const viewed = await call(child.url, "POST", "/api/approval-links/view", { token });
    expect(viewed.status).toBe(200);
    expect(viewed.body).toMatchObject({ status: "pending", runId: ownersRun, workflowId: "owners" });
    expect((await approvalOf(child, refundRun)).status).toBe("pending");
    expect((await approvalOf(child, ownersRun)).status).toBe("pending");
    expect(count("/owners/approved") + count("/owners/rejected")).toBe(0);

    // The link needs no session; it works once.
    expect((await call(child.url, "POST", "/api/approval-links/decision", { token, decision: "approved" })).status).toBe(200);
    await until("the owners' run to complete", statusIs(child, ownersRun, "completed"));
    expect((await call(child.url, "POST", "/api/approval-links/decision", { token, decision: "rejected" })).status).toBe(409);
    expect(await approvalOf(child, ownersRun)).toMatchObject({ decision: "approved", decidedBy: "link:owner" });
    expect(count("/owners/approved")).toBe(1);
    expect(count("/owners/rejected")).toBe(0);

    // The viewer's refused decision left the refund waiting; an editor may decide it.
    expect((await runOf(child, refundRun)).run.status).toBe("waiting");
    expect((await editor("POST", `/api/approvals/${refund.id}/decision`, { decision: "rejected" })).status).toBe(200);
    await until("the rejected refund to complete", statusIs(child, refundRun, "completed"));
    expect(count("/refund/rejected")).toBe(1);
    expect(count("/refund/approved")).toBe(1);
  });
});
