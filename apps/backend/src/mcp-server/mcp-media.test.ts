import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { WorkflowInput } from "@weft/types";
import { startTestServer, type TestServer } from "../testing/test-server.ts";

let t: TestServer;
let client: Client;
/** Bytes that are no text: the round trip must keep every one. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3000)]);
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomBytes(500)]);

/** A skill whose outputs are an image, a file and a text, each a constant. */
function mediaSkill(id: string, image: unknown): WorkflowInput {
  const file = { mimeType: "application/pdf", name: "report.pdf", data: PDF.toString("base64") };
  return {
    id,
    name: id,
    nodes: [
      { id: "img", type: "core:const-json", config: { value: image } },
      { id: "doc", type: "core:const-json", config: { value: file } },
      { id: "txt", type: "core:const-text", config: { value: "a caption" } },
      { id: "o1", type: "core:workflow-output", config: { name: "picture", portType: "image" } },
      { id: "o2", type: "core:workflow-output", config: { name: "report", portType: "file" } },
      { id: "o3", type: "core:workflow-output", config: { name: "caption", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "img", sourceHandle: "value", target: "o1", targetHandle: "value" },
      { id: "e2", source: "doc", sourceHandle: "value", target: "o2", targetHandle: "value" },
      { id: "e3", source: "txt", sourceHandle: "value", target: "o3", targetHandle: "value" },
    ],
  };
}

beforeAll(async () => {
  t = await startTestServer();
  for (const workflow of [mediaSkill("draw", { mimeType: "image/png", data: PNG.toString("base64") }), mediaSkill("not-an-image", { mimeType: "text/plain", data: "aGk=" })]) {
    const saved = await t.call("POST", "/api/workflows", { workflow });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  }
  client = new Client({ name: "weft-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.server.accessToken}` } } }));
}, 120_000);
afterAll(async () => {
  await client.close();
  await t.stop();
});

describe("skills that return images and files", () => {
  it("answers an image output as image content and a file as an embedded resource, their bytes equal to the outputs", async () => {
    const { tools } = await client.listTools();
    const draw = tools.find((tool) => tool.name === "draw");
    expect(draw?.outputSchema?.properties?.picture).toMatchObject({ type: "object", required: ["mimeType", "bytes"] });
    // The SDK's client checks structuredContent against the output schema: this call passing is that check.
    const result = (await client.callTool({ name: "draw", arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const image = result.content.find((c) => c.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(Buffer.from(image?.type === "image" ? image.data : "", "base64").equals(PNG)).toBe(true);
    const file = result.content.find((c) => c.type === "resource");
    expect(file?.type === "resource" && file.resource).toMatchObject({ mimeType: "application/pdf", uri: expect.stringMatching(/^weft:\/\/runs\/.+\/outputs\/report$/) });
    const blob = file?.type === "resource" && "blob" in file.resource ? file.resource.blob : "";
    expect(Buffer.from(blob, "base64").equals(PDF)).toBe(true);
    expect(result.content[0]).toEqual({ type: "text", text: JSON.stringify({ caption: "a caption" }) });
    expect(result.structuredContent).toEqual({
      picture: { mimeType: "image/png", bytes: PNG.length },
      report: { mimeType: "application/pdf", name: "report.pdf", bytes: PDF.length },
      caption: "a caption",
    });
  });

  it("fails the run when an image output is not an image: the caller gets an error, not a mislabelled file", async () => {
    const result = (await client.callTool({ name: "not-an-image", arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content.some((c) => c.type === "image")).toBe(false);
  });
});
