import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine } from "../engine/index.ts";
import { createFixture, type Fixture } from "./testing/fixture.ts";

/** http:request run by the real engine through a real tool host, against a real local server. */
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("y".repeat(200 * 1024), { headers: { "content-type": "text/plain" } }) });
const origin = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ permissions: { rules: [{ action: "allow", tool: "http.request", target: `${origin}/**` }] } });
});
afterEach(() => fx.cleanup());

describe("http:request node", () => {
  it("streams download progress as chunks and gives status and body", async () => {
    const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { toolHost: fx.host } });
    const result = await engine.run(engine.singleNodeWorkflow("http:request", { url: `${origin}/big` }), { runId: "run-http" });
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(result.outputs).toMatchObject({ ok: true, status: 200, headers: { "content-type": "text/plain" } });
    expect(result.outputs.body).toHaveLength(200 * 1024);
    const chunks = result.observations.find((o) => o.nodeType === "http:request")?.chunks ?? [];
    expect(chunks.at(-1)).toEqual({ receivedBytes: 200 * 1024, totalBytes: 200 * 1024 });
  });

  it("a refused address is a result with its code, not a node failure", async () => {
    const engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { toolHost: fx.host } });
    const result = await engine.run(engine.singleNodeWorkflow("http:request", { url: `http://localhost:${server.port}/` }), { runId: "run-http" });
    expect(result.outputs).toMatchObject({ ok: false, result: { error: { code: "E_PRIVATE_ADDRESS" } } });
  });
});
