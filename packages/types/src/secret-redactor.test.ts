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

  it("replaces a key's base64 (standard and URL-safe) inside any base64 text, and its percent-encoded forms", () => {
    const r = new SecretRedactor();
    const key = "s3cr+t/Key?&=ü-0123456789";
    r.set("p", "P", [key]);
    // Whatever comes before the key shifts its base64 by 0, 1 or 2 bytes; a derived header such as `Bearer <key>` is the usual case.
    for (const prefix of ["", "B", "Be", "Bearer ", "user:", "Authorization: Basic x"]) {
      const plain = `${prefix}${key}-tail`;
      for (const encoded of [Buffer.from(plain).toString("base64"), Buffer.from(plain).toString("base64url")]) {
        const redacted = r.text(`seen ${encoded} here`);
        expect(redacted, `${prefix} / ${encoded}`).toContain("[redacted:P]");
        // What is left of the base64 text decodes to nothing near the key: at most 2 bytes of it survive at each edge.
        const left = redacted.split("[redacted:P]").map((part) => Buffer.from(part.replace(/^seen |here$/g, "").trim(), "base64").toString("latin1"));
        expect(left.join("|")).not.toContain(key.slice(2, -2));
      }
    }
    for (const encoded of [encodeURIComponent(key), new URLSearchParams({ q: key }).toString(), encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())]) {
      expect(r.text(`https://x.test/?${encoded}`)).not.toContain(encoded.replace(/^q=/, ""));
    }
    expect(JSON.parse(r.json(JSON.stringify({ auth: Buffer.from(`Bearer ${key}`).toString("base64") }))).auth).toContain("[redacted:P]");
  });

  it("redacts a long text (its secrets found in one pass) exactly as a short one", () => {
    const r = new SecretRedactor();
    r.set("short", "Short", ["abcdefgh"]);
    r.set("long", "Long", ["abcdefgh-and-more"]);
    r.set("p", "P", [KEY, 'key"with\\quote-0123']);
    const pad = "weft and warp, ".repeat(400);
    const snippets = [
      `${KEY} and abcdefgh-and-more / abcdefgh`,
      `Bearer ${Buffer.from(`Bearer ${KEY}`).toString("base64")}`,
      encodeURIComponent('key"with\\quote-0123'),
      "nothing secret",
      `${KEY}${KEY}abcdefg`,
    ];
    for (const snippet of snippets) {
      expect(r.text(`${pad}${snippet}${pad}`), snippet).toBe(`${pad}${r.text(snippet)}${pad}`);
      const json = JSON.stringify({ pad, snippet });
      expect(JSON.parse(r.json(json)), snippet).toEqual({ pad, snippet: JSON.parse(r.json(JSON.stringify({ snippet }))).snippet });
    }
    expect(r.text(`${pad}${KEY}`)).not.toContain(KEY);
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
