import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { startTestServer, tempDir, templateWorkflow, waitFor, type TestServer } from "../testing/test-server.ts";

/** What a generated client sends by default: DELETE and body-less POST without a body or a Content-Type. */

let t: TestServer;
let project: string;
let cookie: string;
beforeAll(async () => {
  project = tempDir("weft-bodyless-project-");
  t = await startTestServer({ projectDir: project });
  const signIn = await fetch(`${t.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: t.server.accessToken }) });
  expect(signIn.status).toBe(200);
  cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
});
afterAll(() => t.stop());

const WorkflowIdsSchema = z.object({ workflows: z.array(z.object({ id: z.string() })) });
const workflowIds = async () => WorkflowIdsSchema.parse((await t.call("GET", "/api/workflows")).body).workflows.map((w) => w.id);
const bearer = () => ({ authorization: `Bearer ${t.server.accessToken}` });

/** A raw request: exactly these headers, no body unless given (so fetch adds no Content-Type of its own). */
const send = (path: string, method: string, headers: Record<string, string>, body?: BodyInit) => fetch(t.url + path, { method, headers, body, redirect: "manual" });

async function saved(id: string): Promise<void> {
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow(id) })).status).toBe(201);
}

describe("requests without a body need no Content-Type", () => {
  it("DELETE without a body or Content-Type deletes", async () => {
    await saved("to-delete");
    const res = await send("/api/workflows/to-delete", "DELETE", bearer());
    expect(res.status).toBe(200);
    expect(await workflowIds()).not.toContain("to-delete");
  });

  it("a body-less POST …/duplicate without Content-Type duplicates", async () => {
    await saved("to-copy");
    const res = await send("/api/workflows/to-copy/duplicate", "POST", bearer());
    expect(res.status).toBe(201);
    expect(await workflowIds()).toContain("to-copy-copy");
  });

  it("a body-less POST or DELETE from a foreign page, with the user's session cookie, is refused and changes nothing", async () => {
    await saved("kept");
    const before = await workflowIds();
    for (const origin of ["http://evil.example", "null"]) {
      expect((await send("/api/workflows/kept/duplicate", "POST", { cookie, origin })).status, origin).toBe(403);
      expect((await send("/api/workflows/kept", "DELETE", { cookie, origin })).status, origin).toBe(403);
    }
    expect(await workflowIds()).toEqual(before);
    // The same requests from Weft's own page do act: the refusal above is the Origin's.
    expect((await send("/api/workflows/kept/duplicate", "POST", { cookie, origin: t.url })).status).toBe(201);
  });

  it("a body without a Content-Type (a Blob a page may post cross-site) is still refused, and the draft it carries never runs", async () => {
    const draft = { workflow: { id: "pwn", name: "Pwn", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/untyped.txt", content: "pwned" } }], edges: [] } };
    const res = await send("/api/workflows/pwn/runs", "POST", bearer(), new TextEncoder().encode(JSON.stringify(draft)));
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    // The same draft sent as JSON does write: the file's absence above is the refusal's doing.
    const allowed = await send(
      "/api/workflows/pwn/runs",
      "POST",
      { ...bearer(), "content-type": "application/json" },
      new TextEncoder().encode(JSON.stringify({ workflow: { ...draft.workflow, nodes: [{ ...draft.workflow.nodes[0], inputs: { path: "@project/typed.txt", content: "ok" } }] } })),
    );
    expect(allowed.status).toBe(202);
    await waitFor(async () => (existsSync(join(project, "typed.txt")) ? true : undefined), 60_000, "the allowed write");
    expect(existsSync(join(project, "untyped.txt"))).toBe(false);
  });
});
