import { afterEach, describe, expect, it } from "vitest";
import { LlmError, LlmProfileSchema, NodeFailure, type LlmTurn } from "@weft/types";
import { ProfileLlmService, StaticLlmProfileResolver } from "./llm-service.ts";
import { startScriptedLlmServer, type ScriptedLlmServer } from "./testing/scripted-llm-server.ts";

let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("ProfileLlmService", () => {
  it("uses the default profile unless the request names another, with each profile's settings", async () => {
    server = await startScriptedLlmServer({
      turns: [
        { kind: "text", chunks: ["a"] },
        { kind: "text", chunks: ["b"] },
      ],
    });
    const profiles = [
      LlmProfileSchema.parse({ id: "fast", name: "Fast", baseUrl: server.baseUrl, model: "small", apiKey: "k-fast", temperature: 0.1 }),
      LlmProfileSchema.parse({ id: "deep", name: "Deep", baseUrl: server.baseUrl, model: "large", apiKey: "k-deep" }),
    ];
    const turns: LlmTurn[] = [];
    const service = new ProfileLlmService({ profiles: new StaticLlmProfileResolver(profiles, "deep"), onTurn: (t) => turns.push(t) });
    expect((await service.chat({ messages: [{ role: "user", content: "1" }] })).text).toBe("a");
    expect((await service.chat({ messages: [{ role: "user", content: "2" }], profileId: "fast" })).text).toBe("b");
    const [first, second] = server.chatBodies();
    expect(first).toMatchObject({ model: "large" });
    expect(first.temperature).toBeUndefined();
    expect(second).toMatchObject({ model: "small", temperature: 0.1 });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer k-deep", "Bearer k-fast"]);
    expect(turns.map((t) => t.profileId)).toEqual(["deep", "fast"]);
  });

  it("keeps one client per profile, and a changed profile (a new key) is used at once", async () => {
    server = await startScriptedLlmServer({
      turns: [
        { kind: "text", chunks: ["a"] },
        { kind: "text", chunks: ["b"] },
        { kind: "text", chunks: ["c"] },
      ],
    });
    let profile = LlmProfileSchema.parse({ id: "p", name: "P", baseUrl: server.baseUrl, model: "m", apiKey: "k-old" });
    const service = new ProfileLlmService({ profiles: { resolve: async () => profile } });
    await service.chat({ messages: [{ role: "user", content: "1" }] });
    await service.chat({ messages: [{ role: "user", content: "2" }] });
    profile = { ...profile, apiKey: "k-new" };
    await service.chat({ messages: [{ role: "user", content: "3" }] });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer k-old", "Bearer k-old", "Bearer k-new"]);
  });

  it("rejects with a coded LlmError that is also a NodeFailure", async () => {
    server = await startScriptedLlmServer({ turns: [{ kind: "http_error", status: 404, message: "model gone" }] });
    const profile = LlmProfileSchema.parse({ id: "p", name: "P", baseUrl: server.baseUrl, model: "gone" });
    const service = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]) });
    const error = await service.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toBeInstanceOf(NodeFailure);
    expect((error as LlmError).code).toBe("MODEL_NOT_FOUND");
    expect((error as LlmError).turn?.request.messages).toEqual([{ role: "user", content: "x" }]);

    const missing = await service.chat({ messages: [{ role: "user", content: "x" }], profileId: "other" }).catch((e: unknown) => e);
    expect((missing as LlmError).code).toBe("PROFILE_NOT_FOUND");
    const none = await new ProfileLlmService({ profiles: new StaticLlmProfileResolver([]) }).chat({ messages: [] }).catch((e: unknown) => e);
    expect((none as LlmError).message).toBe("No default LLM profile is configured.");
  });

  it("validates profiles precisely", () => {
    const bad = LlmProfileSchema.safeParse({ id: "p", name: "P", baseUrl: "api.example.com", model: "m" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toContain("http:// or https://");
  });
});
