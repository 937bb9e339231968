import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { webhookTrigger } from "./webhook.ts";

// End to end (a real server, signed requests, the request pinned as this node's outputs): apps/backend/src/triggers/webhooks.test.ts.
describe("trigger:webhook", () => {
  it("run by hand gives an empty request of its method, so the rest of the workflow can be tried", async () => {
    expect(await runNode(webhookTrigger, {}, { path: "orders/new", method: "PUT" })).toEqual({ body: null, headers: {}, query: {}, method: "PUT" });
  });

  it("refuses a path that could escape its place under /hooks/<workflowId>/", async () => {
    const failure = await expectFailure(runNode(webhookTrigger, {}, { path: "../other" }), "INVALID_CONFIG");
    expect(failure.message).toContain("path");
  });
});
