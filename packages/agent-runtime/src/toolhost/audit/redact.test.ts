import { describe, expect, it } from "vitest";
import { limitsHit, redactText, summariseArgs, summariseResult } from "./redact.ts";

describe("redactText", () => {
  it.each([
    ["OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234", "OPENAI_API_KEY=[REDACTED]"],
    ["curl -H 'Authorization: Bearer abc.def.ghi123'", "curl -H 'Authorization: Bearer [REDACTED]'"],
    ["git log --token hunter2secret", "git log --token [REDACTED]"],
    ["use ghp_abcdefghijklmnopqrstuvwxyz0123 now", "use [REDACTED] now"],
    ["aws AKIAABCDEFGHIJKLMNOP key", "aws [REDACTED] key"],
    ["password: 'p@ss w0rd'", "password: [REDACTED]"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED]"],
    ["jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "jwt [REDACTED]"],
  ])("redacts %j", (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it("leaves ordinary text alone", () => {
    for (const text of ["grep -n TODO src/auth/login.ts", "@project/keys/README.md", "the author wrote this", "git log --oneline -5"]) expect(redactText(text)).toBe(text);
  });
});

describe("summariseArgs", () => {
  it("drops secret-named values, reduces file content to size and digest, and shortens long text", () => {
    const summary = summariseArgs({ path: "@project/a.md", content: "secret body", apiKey: "x", token: 1, note: "n".repeat(500), update: { variables: { set: { a: [1, 2, 3] } } } });
    expect(summary).toEqual({
      path: "@project/a.md",
      content: { bytes: 11, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      apiKey: "[REDACTED]",
      token: "[REDACTED]",
      note: "n".repeat(200) + "…(500 chars)",
      update: { variables: { set: { a: "[3 items]" } } },
    });
  });
});

describe("result summaries", () => {
  it("keep descriptive fields and counts, never content", () => {
    expect(summariseResult({ ok: true, path: "@project/a", content: "secret", bytes: 6, sha256: "abc", truncated: false })).toEqual({
      ok: true,
      path: "@project/a",
      bytes: 6,
      sha256: "abc",
      truncated: false,
    });
    expect(summariseResult({ ok: true, matches: [1, 2], stdout: "ééé", exitCode: 0 })).toEqual({ ok: true, matchesCount: 2, stdoutBytes: 6, exitCode: 0 });
    expect(summariseResult({ ok: false, error: { code: "E_TIMEOUT", message: "slow", details: { stdout: "secret" } } })).toEqual({ ok: false, code: "E_TIMEOUT", message: "slow" });
  });

  it("name the limits a call ran into", () => {
    expect(limitsHit({ ok: true, truncated: true })).toEqual(["truncated"]);
    expect(limitsHit({ ok: true, stdoutTruncated: true, stderrTruncated: false, killedBy: "output-limit" })).toEqual(["stdout-cap", "output-limit"]);
    expect(limitsHit({ ok: false, error: { code: "E_WRITE_LIMIT", message: "" } })).toEqual(["write-limit"]);
    expect(limitsHit({ ok: false, error: { code: "ENOENT", message: "" } })).toEqual([]);
  });
});
