import { afterAll, describe, expect, it } from "vitest";
import { NodeFailure } from "@weft/types";
import { expectFailure, runNodeFull } from "../testing/harness.ts";
import { CodeWorkers, codeWorkers, type CodeJob } from "./code-workers.ts";
import { codeJavascript } from "./javascript.ts";

const job = (code: string): CodeJob => ({ code, input: null, limits: { memoryBytes: 64 * 1024 * 1024, maxLogBytes: 64 * 1024 } });

/** One thread only: a call can run only once the thread before it was freed. */
const single = new CodeWorkers({ size: 1 });
afterAll(() => {
  single.close();
  codeWorkers.close();
});

describe("code:javascript threads", () => {
  it("leaves the event loop free: a second call completes while a spinning one still runs", async () => {
    let spinnerEnded = false;
    const spinner = runNodeFull(codeJavascript, { code: "while (true) {}", timeoutMs: 10_000 }).finally(() => (spinnerEnded = true));
    spinner.catch(() => undefined);
    const { outputs } = await runNodeFull(codeJavascript, { code: "return 6 * 7;", timeoutMs: 20_000 });
    expect(outputs.result).toBe(42);
    expect(spinnerEnded).toBe(false);
    const failure = await expectFailure(spinner, "CODE_TIMEOUT");
    expect(failure.message).toContain("10000 ms");
  });

  it("terminates a spinning thread at the time limit, and the next call runs on a fresh one", async () => {
    const stopped = await single.run(job("while (true) {}"), { timeoutMs: 300 }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(NodeFailure);
    expect(stopped).toMatchObject({ code: "CODE_TIMEOUT", details: { timeoutMs: 300 } });
    expect(await single.run(job("return 1 + 1;"), { timeoutMs: 20_000 })).toEqual({ value: 2, logs: [] });
  });

  it("stops killed code for good: four spinners stopped at their limit burn no more CPU", async () => {
    // In a process of its own, so the CPU it used is the pool's alone (this one runs other test files' threads).
    const script = `
      import { CodeWorkers } from ${JSON.stringify(new URL("./code-workers.ts", import.meta.url).pathname)};
      const pool = new CodeWorkers({ size: 1 });
      const limits = { memoryBytes: 64 << 20, maxLogBytes: 1024 };
      let stopped = "";
      for (let i = 0; i < 4; i++) stopped = await pool.run({ code: "while (true) {}", input: null, limits }, { timeoutMs: 300 }).catch((error) => error.code);
      // The fresh thread that took its place is ready once it answers: its start is not what is measured.
      await pool.run({ code: "return 1", input: null, limits }, { timeoutMs: 20000 });
      await Bun.sleep(300);
      const before = process.cpuUsage();
      await Bun.sleep(1000);
      const used = process.cpuUsage(before);
      console.log(JSON.stringify({ stopped, cpuMs: (used.user + used.system) / 1000 }));
      process.exit(0);`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const report = JSON.parse((await new Response(child.stdout).text()).trim()) as { stopped: string; cpuMs: number };
    expect(report.stopped).toBe("CODE_TIMEOUT");
    // A thread still spinning takes a core's worth of CPU time in that second (a third of one at least on a busy machine).
    expect(report.cpuMs).toBeLessThan(300);
  });

  it("terminates the thread of a cancelled call: the only thread is free for the next one", async () => {
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const spinner = single.run(job('console.log("spinning");\nwhile (true) {}'), { timeoutMs: 600_000, signal: controller.signal, onLog: () => started() });
    await running;
    controller.abort();
    await expect(spinner).rejects.toMatchObject({ code: "CANCELLED" });
    // Had the spinning code gone on, this would wait in line for ten minutes.
    expect(await single.run(job('console.log("next");\nreturn "ran";'), { timeoutMs: 20_000 })).toEqual({ value: "ran", logs: ["next"] });
  });

  it("takes a waiting call out of the line when it is cancelled", async () => {
    const busy = single.run(job("while (true) {}"), { timeoutMs: 2_000 });
    busy.catch(() => undefined);
    const controller = new AbortController();
    const waiting = single.run(job("return 1;"), { timeoutMs: 20_000, signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "CANCELLED" });
    await expect(busy).rejects.toMatchObject({ code: "CODE_TIMEOUT" });
  });
});
