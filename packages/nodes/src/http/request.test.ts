import { describe, expect, it } from "vitest";
import { expectFailure, runNodeFull } from "../testing/harness.ts";
import { httpRequest } from "./request.ts";

// End to end (engine, tool host, a real server): agent-runtime/src/toolhost/http-node.test.ts and tools/http-request.test.ts.
describe("http:request", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNodeFull(httpRequest, { url: "https://example.com/" }), "MISSING_SERVICE");
    expect(failure.message).toContain("http:request needs the tool host");
  });

  it("streams the tool host's progress reports as chunks, then gives the outputs", async () => {
    const run = await runNodeFull(
      httpRequest,
      { url: "https://example.com/", credential: "api" },
      {
        services: {
          toolHost: {
            call: async (tool, args, ctx) => {
              ctx?.onProgress?.({ receivedBytes: 1 });
              ctx?.onProgress?.({ receivedBytes: 2 });
              await Bun.sleep(1);
              ctx?.onProgress?.({ receivedBytes: 3 });
              return {
                ok: true,
                status: 201,
                statusText: "Created",
                url: String(args.url),
                redirects: [],
                headers: {},
                body: { tool },
                bodyType: "json",
                bytes: 3,
                truncated: false,
                attempts: 1,
                durationMs: 1,
              };
            },
          },
        },
      },
    );
    expect(run.chunks).toEqual([{ receivedBytes: 1 }, { receivedBytes: 2 }, { receivedBytes: 3 }]);
    expect(run.outputs).toMatchObject({ ok: true, status: 201, body: { tool: "http.request" } });
  });
});
