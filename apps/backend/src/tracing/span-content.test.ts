import { describe, expect, it } from "vitest";
import { SecretRedactor, type ChatMessage } from "@weft/types";
import { contentRecorder } from "./span-content.ts";

const SECRET = "sk-live-" + "q7Wm2Xr9Lp4Tz8Vn3Hb6".repeat(2);

function redactor(): SecretRedactor {
  const r = new SecretRedactor();
  r.set("profile-1", "LLM profile", [SECRET]);
  return r;
}

describe("contentRecorder: prompts and completions on LLM spans", () => {
  it("redacts a secret in any message text, and records the messages as JSON", () => {
    const record = contentRecorder(redactor(), 10_000);
    const messages: ChatMessage[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: `my key is ${SECRET}, keep it` },
    ];
    const json = record(messages);
    expect(json).not.toContain(SECRET);
    const parsed = JSON.parse(json) as { role: string; content: string }[];
    expect(parsed.map((m) => m.role)).toEqual(["system", "user"]);
    expect(parsed[1].content).toMatch(/^my key is \[redacted:[^\]]+\], keep it$/);
  });

  it("cuts the text to its budget before serialising, never leaving part of a secret that straddles the cut", () => {
    const budget = 1000;
    const record = contentRecorder(redactor(), budget);
    // The secret starts 10 characters before the cut: cutting first and redacting after would leave its first 10 characters.
    const long = "a".repeat(budget - 10) + SECRET + "b".repeat(50_000);
    const json = record([
      { role: "user", content: long },
      { role: "user", content: "c".repeat(100) },
    ]);
    expect(json).not.toContain(SECRET.slice(0, 10));
    const parsed = JSON.parse(json) as { role: string; content: string }[];
    expect(parsed[0].content.startsWith("a".repeat(budget - 10))).toBe(true);
    expect(parsed[0].content).toContain(`[truncated: ${long.length} characters]`);
    expect(json.length).toBeLessThan(budget + 200);
    // The budget is for all messages together: a later one keeps its place and role, with no text.
    expect(parsed[1]).toEqual({ role: "user", content: "…[truncated: 100 characters]" });
  });
});
