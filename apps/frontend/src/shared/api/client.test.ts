import { describe, expect, it } from "vitest";
import { WorkflowSchema } from "@weft/types";
import { ApiClient } from "./client.ts";
import { WorkflowResponseSchema } from "./schemas.ts";

/** A client whose server answers every call with `body` (status 200). */
const answering = (body: unknown) => new ApiClient("", async () => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } }));

const stored = () =>
  JSON.parse(
    JSON.stringify({
      workflow: WorkflowSchema.parse({
        id: "w",
        name: "W",
        nodes: [
          { id: "a", type: "core:text-template", config: { template: "{{x}}" } },
          { id: "b", type: "core:text-transform", policy: { onError: "route" } },
        ],
        edges: [{ id: "e", source: "a", sourceHandle: "text", target: "b", targetHandle: "text" }],
      }),
      updatedAt: "2026-11-30T10:00:00.000Z",
      builtIn: false,
    }),
  ) as { workflow: { nodes: Record<string, unknown>[] } };

describe("a workflow's reply, decoded", () => {
  it("gives a stored workflow as the schema does", async () => {
    const body = stored();
    const result = await answering(body).getWorkflow("w");
    expect(result).toEqual({ ok: true, value: WorkflowResponseSchema.parse(body) });
  });

  it("refuses an invalid workflow with the schema's precise error", async () => {
    const body = stored();
    body.workflow.nodes[1].id = "b c";
    const result = await answering(body).getWorkflow("w");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: "BAD_RESPONSE", message: "GET /api/workflows/w: workflow.nodes.1.id node ids contain no whitespace and no `/` (reserved for skill namespacing)" });
  });

  it("fills what a reply leaves out as the schema does (a node without its settings), and refuses a bad time", async () => {
    const body = stored();
    delete body.workflow.nodes[0].config;
    const filled = await answering(body).getWorkflow("w");
    expect(filled.ok && filled.value.workflow.nodes[0].config).toEqual({});
    const late = await answering({ ...stored(), builtIn: "no" }).getWorkflow("w");
    expect(late.ok ? null : late.error.message).toBe("GET /api/workflows/w: builtIn Invalid input: expected boolean, received string");
  });
});

describe("the answers the page's start asked for (early-start.js)", () => {
  const holder = globalThis as { weftEarlyAnswers?: Record<string, Promise<unknown>> };
  /** A client counting the calls that reach its server, which answers every one with `body`. */
  const counting = (body: unknown) => {
    const calls: string[] = [];
    const client = new ApiClient("", async (url) => {
      calls.push(url);
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    });
    return { client, calls };
  };

  it("takes the parsed answer the start holds, once: the server is not asked for it again, and a later call asks", async () => {
    const body = stored();
    holder.weftEarlyAnswers = { "/api/workflows/w": Promise.resolve(body) };
    try {
      const { client, calls } = counting(body);
      await expect(client.getWorkflow("w")).resolves.toEqual({ ok: true, value: WorkflowResponseSchema.parse(body) });
      expect(calls).toEqual([]);
      await expect(client.getWorkflow("w")).resolves.toMatchObject({ ok: true });
      expect(calls).toEqual(["/api/workflows/w"]);
    } finally {
      delete holder.weftEarlyAnswers;
    }
  });

  it("asks the server when the start's answer was not a 200 (undefined), and checks an early answer like any other", async () => {
    const body = stored();
    body.workflow.nodes[1].id = "b c";
    holder.weftEarlyAnswers = { "/api/workflows/w": Promise.resolve(undefined), "/api/workflows/bad": Promise.resolve(body) };
    try {
      const { client, calls } = counting(stored());
      await expect(client.getWorkflow("w")).resolves.toMatchObject({ ok: true });
      expect(calls).toEqual(["/api/workflows/w"]);
      const bad = await client.getWorkflow("bad");
      expect(bad).toMatchObject({ ok: false, error: { code: "BAD_RESPONSE", status: 200 } });
      expect(calls).toEqual(["/api/workflows/w"]);
    } finally {
      delete holder.weftEarlyAnswers;
    }
  });
});
