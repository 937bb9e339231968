import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { startTestServer, waitFor, type TestServer } from "../testing/test-server.ts";
import { startHitCounter } from "../testing/hit-counter.ts";

/** The side effects of the skills' branches, counted by path. */
const listener = startHitCounter({ amount: 42 });
let t: TestServer;
const clients: Client[] = [];

const ApprovalList = z.object({
  approvals: z.array(z.object({ id: z.string(), status: z.string(), decision: z.string().optional(), decidedBy: z.string().optional(), comment: z.string().optional() })),
});
const RunList = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() })) });

/** A skill: up (a request) → gate (core:approval) → approved: POST /<label>/approved, rejected: POST /<label>/rejected. */
function gatedSkill(label: string) {
  const request = (id: string, path: string, method = "GET") => ({ id, type: "http:request", inputs: { url: `${listener.origin}/${label}/${path}`, method, retries: 0 } });
  return {
    id: label,
    name: label,
    nodes: [
      { id: "note", type: "core:workflow-input", config: { name: "note", portType: "string" } },
      request("up", "upstream"),
      { id: "gate", type: "core:approval", config: { question: `Pay for ${label}?` } },
      request("yes", "approved", "POST"),
      request("no", "rejected", "POST"),
    ],
    edges: [
      { id: "e1", source: "up", sourceHandle: "body", target: "gate", targetHandle: "data" },
      { id: "e2", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "body" },
      { id: "e3", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "body" },
    ],
  };
}

/** A client of the owner's token; with `answer`, it declares elicitation and answers each form so. */
async function connect(answer?: (request: ElicitRequest) => ElicitResult): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  if (answer) client.setRequestHandler(ElicitRequestSchema, (request) => answer(request));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.server.accessToken}` } } }));
  clients.push(client);
  return client;
}

const approvalsOf = async (workflowId: string) => {
  const { runs } = RunList.parse((await t.call("GET", `/api/runs?workflowId=${workflowId}`)).body);
  expect(runs).toHaveLength(1);
  return ApprovalList.parse((await t.call("GET", `/api/approvals?runId=${runs[0]!.id}`)).body).approvals;
};

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${listener.origin}/**` }] })).status).toBe(200);
  for (const label of ["pay-yes", "pay-no", "pay-inbox"]) {
    const saved = await t.call("POST", "/api/workflows", { workflow: gatedSkill(label) });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await t.stop();
  await listener.stop();
});

describe("an approval in a skill run started through /mcp", () => {
  it("is asked of a client that answers forms; its approval runs the approved branch only, recorded as the token's user via MCP", async () => {
    const asked: string[] = [];
    const client = await connect((request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { decision: "approved", comment: "fine by me" } };
    });
    const result = (await client.callTool({ name: "pay-yes", arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual([expect.stringMatching(/^Pay for pay-yes\?\n\nData: \{"amount":42\}/)]);
    expect(listener.count("/pay-yes/approved")).toBe(1);
    expect(listener.count("/pay-yes/rejected")).toBe(0);
    expect(listener.count("/pay-yes/upstream")).toBe(1);
    expect(await approvalsOf("pay-yes")).toEqual([expect.objectContaining({ status: "decided", decision: "approved", decidedBy: "mcp:owner", comment: "fine by me" })]);
  });

  it("a rejection runs the rejected branch only", async () => {
    const client = await connect(() => ({ action: "accept", content: { decision: "rejected" } }));
    const result = (await client.callTool({ name: "pay-no", arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(listener.count("/pay-no/rejected")).toBe(1);
    expect(listener.count("/pay-no/approved")).toBe(0);
    expect(await approvalsOf("pay-no")).toEqual([expect.objectContaining({ status: "decided", decision: "rejected", decidedBy: "mcp:owner" })]);
  });

  it("waits in the inbox, as without MCP, for a client without the elicitation capability", async () => {
    const client = await connect();
    const call = client.callTool({ name: "pay-inbox", arguments: {} }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
    const [pending] = await waitFor(async () => {
      const { runs } = RunList.parse((await t.call("GET", "/api/runs?workflowId=pay-inbox")).body);
      if (runs[0]?.status !== "waiting") return undefined;
      const approvals = ApprovalList.parse((await t.call("GET", `/api/approvals?runId=${runs[0].id}`)).body).approvals;
      return approvals.length > 0 ? approvals : undefined;
    });
    expect(pending?.status).toBe("pending");
    expect(listener.count("/pay-inbox/approved") + listener.count("/pay-inbox/rejected")).toBe(0);
    expect((await t.call("POST", `/api/approvals/${pending!.id}/decision`, { decision: "approved" })).status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(listener.count("/pay-inbox/approved")).toBe(1);
    expect(listener.count("/pay-inbox/rejected")).toBe(0);
  });
});
