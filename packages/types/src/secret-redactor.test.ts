import { describe, expect, it } from "vitest";
import type { Logger } from "./logger.ts";
import { redactingLogger, SecretRedactor } from "./secret-redactor.ts";

const KEY = "sk-proj-AbCdEfGh0123456789";

describe("SecretRedactor", () => {
  it("replaces a known key in text, JSON text and values, and leaves other text alone", () => {
    const r = new SecretRedactor();
    r.set("p1", "Work GPT", [KEY]);
    expect(r.text(`bad key ${KEY}, really ${KEY}`)).toBe("bad key [redacted:Work GPT], really [redacted:Work GPT]");
    expect(r.text("nothing secret here")).toBe("nothing secret here");
    const json = JSON.stringify({ error: { message: `got ${KEY}` }, n: 1 });
    expect(JSON.parse(r.json(json))).toEqual({ error: { message: "got [redacted:Work GPT]" }, n: 1 });
    const value = { list: [KEY, 2], nested: { text: `x${KEY}y` } };
    expect(r.value(value)).toEqual({ list: ["[redacted:Work GPT]", 2], nested: { text: "x[redacted:Work GPT]y" } });
    const clean = { a: "b" };
    expect(r.value(clean)).toBe(clean);
  });

  it("finds a key with JSON-escaped characters in JSON text, and keeps the JSON valid with any label", () => {
    const r = new SecretRedactor();
    const odd = 'key"with\\quote-0123';
    r.set("p", 'Name "quoted"', [odd]);
    const json = JSON.stringify({ message: `echo ${odd}` });
    expect(json).not.toContain(odd);
    expect(JSON.parse(r.json(json))).toEqual({ message: 'echo [redacted:Name "quoted"]' });
  });

  it("replaces the longer of two overlapping keys whole, forgets keys, and skips keys shorter than 8", () => {
    const r = new SecretRedactor();
    r.set("short", "Short", ["abcdefgh"]);
    r.set("long", "Long", ["abcdefgh-and-more"]);
    expect(r.text("abcdefgh-and-more / abcdefgh")).toBe("[redacted:Long] / [redacted:Short]");
    r.forget("long");
    expect(r.text("abcdefgh-and-more")).toBe("[redacted:Short]-and-more");
    r.set("short", "Short", ["ollama"]);
    expect(r.text("ollama abcdefgh")).toBe("ollama abcdefgh");
  });

  it("redacts log messages and fields, also of child loggers", () => {
    const lines: string[] = [];
    const write = (message: string, fields?: Record<string, unknown>) => void lines.push(`${message} ${JSON.stringify(fields)}`);
    const inner: Logger = { debug: write, info: write, warn: write, error: write, child: () => inner };
    const r = new SecretRedactor();
    const log = redactingLogger(inner, r);
    r.set("p", "P", [KEY]);
    log.error(`failed with ${KEY}`, { error: `HTTP 401: ${KEY}` });
    log.child("sub").warn("x", { deep: { list: [KEY] } });
    expect(lines.join("\n")).not.toContain(KEY);
    expect(lines[0]).toBe('failed with [redacted:P] {"error":"HTTP 401: [redacted:P]"}');
  });

  it("does not prepare a message its inner logger would not write", () => {
    const lines: string[] = [];
    const write = (message: string) => void lines.push(message);
    const inner: Logger = { debug: write, info: write, warn: write, error: write, child: () => inner, enabled: (level) => level !== "debug" };
    const r = new SecretRedactor();
    r.set("p", "P", [KEY]);
    const log = redactingLogger(inner, r);
    let read = 0;
    const fields = {
      get detail() {
        read++;
        return KEY;
      },
    };
    log.debug("quiet", fields);
    expect(read).toBe(0);
    expect(log.enabled?.("debug")).toBe(false);
    log.warn(`loud ${KEY}`, fields);
    expect(read).toBe(1);
    expect(lines).toEqual(["loud [redacted:P]"]);
  });
});
