import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { readJsonBody } from "./body.ts";
import { ApiError } from "./errors.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

/** `{"a":{"a":…{"a":1}…}}`, `levels` objects deep. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
}

/** The error readJsonBody throws for these bytes, or undefined when it accepts them. */
async function refusal(body: string | Buffer): Promise<ApiError | undefined> {
  try {
    await readJsonBody(new Request("http://localhost/", { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body) }), 1024 * 1024);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe("request bodies that would break storage are refused at the door", () => {
  it("a workflow nesting 1,000 levels deep: 400 JSON_TOO_DEEP, nothing stored, the list still answers", async () => {
    const deep = `{"workflow":{"id":"deep","name":"Deep","nodes":[{"id":"n","type":"core:const-json","config":{"value":${nested(1000)}}}],"edges":[]}}`;
    const res = await t.call("POST", "/api/workflows", deep);
    expect(res.status).toBe(400);
    expect(ErrorBodySchema.parse(res.body).error).toMatchObject({ code: "JSON_TOO_DEEP", details: { limit: 64 } });
    expect(ErrorBodySchema.parse(res.body).error.message).toContain("deeper than 64 levels");
    expect((await t.call("GET", "/api/workflows/deep")).status).toBe(404);
    expect((await t.call("GET", "/api/workflows")).status).toBe(200);
  });

  it("counts 64 levels as allowed and 65 as too deep, and names the byte where the limit was passed", async () => {
    expect(await refusal(nested(64))).toBeUndefined();
    const error = await refusal(nested(65));
    expect(error?.code).toBe("JSON_TOO_DEEP");
    expect(error?.details).toEqual({ limit: 64, offset: 5 * 64 });
  });

  it("does not count brackets inside strings, escaped quotes included", async () => {
    expect(await refusal(JSON.stringify({ text: "[".repeat(500) + '\\"{' + "{".repeat(500) }))).toBeUndefined();
    // A string ending in a backslash: its closing quote is not escaped.
    expect(await refusal(JSON.stringify({ path: "C:\\", rest: "{".repeat(100) }))).toBeUndefined();
    expect((await refusal(JSON.stringify({ path: "C:\\" }).slice(0, -1) + `,"x":${nested(65)}}`))?.code).toBe("JSON_TOO_DEEP");
  });

  it("refuses __proto__, constructor and prototype keys anywhere, naming the path; nothing is stored", async () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const workflow = JSON.stringify(templateWorkflow("proto")).replace('"config":{"template"', `"config":{"${key}":{"polluted":true},"template"`);
      const res = await t.call("POST", "/api/workflows", `{"workflow":${workflow}}`);
      expect(res.status).toBe(400);
      expect(ErrorBodySchema.parse(res.body).error).toMatchObject({ code: "FORBIDDEN_KEY", details: { key, path: ["workflow", "nodes", 1, "config", key] } });
      expect(ErrorBodySchema.parse(res.body).error.message).toContain(`body.workflow.nodes.1.config.${key}`);
    }
    // Spelt with escapes, it is the same key once parsed.
    const escaped = await refusal('{"a":[{"\\u005f_proto__":1}]}');
    expect(escaped?.details).toMatchObject({ path: ["a", 0, "__proto__"] });
    expect((await t.call("GET", "/api/workflows/proto")).status).toBe(404);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // As a value, or as part of a longer key, it is ordinary text.
    expect(await refusal(JSON.stringify({ note: "__proto__", my_constructor: 1 }))).toBeUndefined();
  });

  it("refuses invalid UTF-8 instead of replacing it, naming the first bad byte", async () => {
    const good = Buffer.from('{"name":"caf\u00e9 \uFFFD ok","x":"');
    const bytes = Buffer.concat([good, Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const error = await refusal(bytes);
    expect(error?.code).toBe("INVALID_UTF8");
    expect(error?.details).toEqual({ offset: good.length });
    expect(error?.message).toContain(`offset ${good.length}`);
    expect(await refusal(good.toString() + '"}')).toBeUndefined();
  });

  it("refuses a deep body on every route that reads one", async () => {
    const routes: [string, string][] = [
      ["POST", "/api/agents"],
      ["POST", "/api/scenes"],
      ["POST", "/api/llm-profiles"],
      ["PUT", "/api/settings/permissions"],
      ["POST", "/api/workflows/validate"],
      ["POST", "/api/workflows/import"],
      ["POST", "/api/builder/sessions"],
    ];
    for (const [method, path] of routes) {
      const res = await t.call(method, path, nested(100));
      expect({ path, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ path, status: 400, code: "JSON_TOO_DEEP" });
    }
  });
});
