import { afterAll, describe, expect, it } from "vitest";
import { expectFailure, runNodeFull } from "../testing/harness.ts";
import { codeJavascript } from "./javascript.ts";
import { codeWorkers } from "./code-workers.ts";

// The code threads end with the file (an idle one would outlast the test worker that started it).
afterAll(() => codeWorkers.close());

const run = (code: string, input?: unknown, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  runNodeFull(codeJavascript, { code, ...(input !== undefined ? { input } : {}), ...extra }, signal ? { signal } : {});

describe("code:javascript", () => {
  it("gets the input as `input`, returns the result, and streams console.log lines as chunks", async () => {
    const { outputs, chunks } = await run(`console.log("items", input.items.length, { a: 1 });\nreturn { total: input.items.reduce((s, x) => s + x, 0) };`, { items: [1, 2, 3] });
    expect(outputs).toEqual({ total: 6, result: { total: 6 }, logs: ['items 3 {"a":1}'] });
    expect(chunks).toEqual([{ log: 'items 3 {"a":1}' }]);
  });

  it("settles an async body", async () => {
    const { outputs } = await run("return (async () => await Promise.resolve(input * 2))();", 21);
    expect(outputs.result).toBe(42);
  });

  it("names the line of the user's code in a runtime error and in a syntax error", async () => {
    const thrown = await expectFailure(run("const a = 1;\nconst b = null;\nreturn b.x;"), "CODE_ERROR");
    expect(thrown.message).toBe("TypeError at line 3: cannot read property 'x' of null");
    expect(thrown.details).toMatchObject({ line: 3 });
    const syntax = await expectFailure(run("const a = 1;\nreturn a +;"), "CODE_SYNTAX_ERROR");
    expect(syntax.message).toMatch(/^SyntaxError at line 2: /);
  });
});

describe("code:javascript sandbox escapes", () => {
  let probeHits = 0;
  const counting = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      probeHits++;
      return new Response("reached");
    },
  });
  afterAll(() => {
    counting.stop(true);
  });

  it.each([
    ["require", "return require('fs').readFileSync('/etc/passwd', 'utf8');"],
    ["process", "return process.env;"],
    ["Bun", "return Bun.file('/etc/passwd');"],
    ["fetch", `return fetch('http://127.0.0.1:${counting.port}/');`],
    ["XMLHttpRequest", "return new XMLHttpRequest();"],
    ["std module", "return std.loadFile('/etc/passwd');"],
  ])("has no %s", async (_name, code) => {
    const failure = await expectFailure(run(code), "CODE_ERROR");
    expect(failure.message).toMatch(/^ReferenceError at line 1: '.+' is not defined$/);
    expect(probeHits).toBe(0);
  });

  it("finds nothing of the host through globals or prototype tricks", async () => {
    const { outputs } = await run(
      `
      const viaFunction = Function("return typeof process + ',' + typeof require + ',' + typeof fetch")();
      const viaConstructor = input.constructor.constructor("return this")();
      const names = Object.getOwnPropertyNames(viaConstructor).filter((n) => /process|require|fetch|Bun|os|std|import/i.test(n));
      Object.prototype.polluted = "yes";
      return { viaFunction, names, sameGlobal: viaConstructor === globalThis };
    `,
      {},
    );
    expect(outputs.result).toEqual({ viaFunction: "undefined,undefined,undefined", names: [], sameGlobal: true });
    // The pollution stayed inside its own VM: neither the host nor the next run sees it.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await run("return ({}).polluted ?? 'clean';")).outputs.result).toBe("clean");
  });

  it("cannot import modules", async () => {
    const failure = await expectFailure(run("return (async () => (await import('fs')).readFileSync('/etc/passwd', 'utf8'))();"), "CODE_ERROR");
    expect(failure.message).not.toContain("root:");
  });

  it("stops an endless loop at the time limit, and the host runs on", async () => {
    const failure = await expectFailure(run("while (true) {}", undefined, { timeoutMs: 50 }), "CODE_TIMEOUT");
    expect(failure.message).toContain("50 ms");
    expect((await run("return 1 + 1;")).outputs.result).toBe(2);
  });

  it("stops a memory bomb at the memory limit", async () => {
    const failure = await expectFailure(run("const a = []; for (;;) a.push({ n: a.length, list: [1, 2, 3] });", undefined, { memoryMb: 16, timeoutMs: 10_000 }), "CODE_MEMORY_LIMIT");
    expect(failure.message).toContain("16 MiB");
  });

  it("applies the memory limit asked for: the same code fits in 64 MiB and not in 8", async () => {
    const code = "const a = []; for (let i = 0; i < 1000000; i++) a.push(i);\nreturn a.length;";
    // The longest time limit allowed (the default is 1 s, which a busy machine ran past): this test is about memory.
    expect((await run(code, undefined, { memoryMb: 64, timeoutMs: 30_000 })).outputs.result).toBe(1_000_000);
    await expectFailure(run(code, undefined, { memoryMb: 8, timeoutMs: 30_000 }), "CODE_MEMORY_LIMIT");
  });

  it("stops unbounded recursion without crashing the host", async () => {
    const failure = await expectFailure(run("function f() { return f() + 1; }\nreturn f();"), "CODE_ERROR");
    expect(failure.message).toContain("stack overflow");
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expectFailure(run("while (true) {}", undefined, { timeoutMs: 10_000 }, controller.signal), "CANCELLED");
  });
});
