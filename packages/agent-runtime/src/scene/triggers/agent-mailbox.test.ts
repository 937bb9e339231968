import { describe, expect, it } from "vitest";
import type { AgentTrigger } from "@weft/types";
import { AgentMailbox, type MailboxHooks } from "./agent-mailbox.ts";

let n = 0;
const event = (topic: string): AgentTrigger => ({ id: `t${++n}`, at: 0, coalesced: 0, kind: "event", topic, payload: null, source: "x", eventSeq: n });
const topicOf = (t: AgentTrigger) => (t.kind === "event" ? t.topic : t.kind);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves once `check` holds, polling on macrotasks (no fixed sleeps). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 1));
}

function recorder(overrides: Partial<MailboxHooks> = {}) {
  const log: string[] = [];
  const hooks: MailboxHooks = {
    admit: () => true,
    onQueued: (t) => log.push(`queued ${topicOf(t)}`),
    onDropped: (t) => log.push(`dropped ${topicOf(t)}`),
    onStarted: (t) => log.push(`started ${topicOf(t)}`),
    onFinished: (t, err) => log.push(`finished ${topicOf(t)}${err ? ` (${(err as Error).message})` : ""}`),
    ...overrides,
  };
  return { log, hooks };
}

describe("AgentMailbox", () => {
  it("never runs two deliberations at once and takes waiting triggers in order", async () => {
    let active = 0;
    let maxActive = 0;
    const done: string[] = [];
    const { hooks } = recorder();
    const mailbox = new AgentMailbox(
      "ann",
      { capacity: 50, overflow: "drop-newest" },
      async (t) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 0));
        await Promise.resolve();
        done.push(topicOf(t));
        active--;
      },
      hooks,
    );
    const topics = Array.from({ length: 12 }, (_, i) => `e.n${i}`);
    for (const t of topics) mailbox.push(event(t));
    expect(mailbox.busy).toBe(true);
    expect(mailbox.waiting()).toHaveLength(11);
    await until(() => done.length === 12);
    expect(maxActive).toBe(1);
    expect(done).toEqual(topics);
    expect(mailbox.toState()).toMatchObject({ queue: [], inFlight: null, delivered: 12 });
  });

  it("reports a failed deliberation and goes on with the next trigger", async () => {
    const { log, hooks } = recorder();
    const mailbox = new AgentMailbox(
      "ann",
      { capacity: 5, overflow: "drop-oldest" },
      async (t) => {
        if (topicOf(t) === "e.bad") throw new Error("model exploded");
      },
      hooks,
    );
    mailbox.push(event("e.bad"));
    mailbox.push(event("e.good"));
    await until(() => log.length === 6);
    expect(log).toEqual(["queued e.bad", "started e.bad", "queued e.good", "finished e.bad (model exploded)", "started e.good", "finished e.good"]);
  });

  it("keeps a trigger waiting while the owner does not admit it, and starts it on pump", async () => {
    let open = false;
    const { log, hooks } = recorder({ admit: () => open });
    const mailbox = new AgentMailbox("ann", { capacity: 5, overflow: "drop-oldest" }, async () => {}, hooks);
    mailbox.push(event("e.held"));
    expect(mailbox.busy).toBe(false);
    expect(mailbox.ready).toBe(true);
    open = true;
    mailbox.pump();
    await until(() => log.includes("finished e.held"));
    expect(mailbox.waiting()).toEqual([]);
  });

  it("drops per its overflow policy while busy, and reports each drop", async () => {
    const gate = deferred();
    const { log, hooks } = recorder();
    const mailbox = new AgentMailbox("ann", { capacity: 2, overflow: "drop-oldest" }, () => gate.promise, hooks);
    for (const t of ["e.run", "e.a", "e.b", "e.c"]) mailbox.push(event(t));
    expect(mailbox.waiting().map(topicOf)).toEqual(["e.b", "e.c"]);
    expect(log).toContain("dropped e.a");
    expect(mailbox.toState().dropped).toBe(1);
    gate.resolve();
    await until(() => !mailbox.busy && mailbox.waiting().length === 0);
  });

  it("close aborts the running deliberation, waits for it, and starts nothing more", async () => {
    let sawAbort = false;
    const { log, hooks } = recorder();
    const mailbox = new AgentMailbox(
      "ann",
      { capacity: 5, overflow: "drop-oldest" },
      (_t, signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve();
          });
        }),
      hooks,
    );
    mailbox.push(event("e.long"));
    mailbox.push(event("e.next"));
    await until(() => log.includes("started e.long"));
    await mailbox.close("scene stopped");
    expect(sawAbort).toBe(true);
    expect(mailbox.busy).toBe(false);
    expect(log).not.toContain("started e.next");
    mailbox.push(event("e.after"));
    expect(mailbox.busy).toBe(false);
  });

  it("saves its queue and in-flight trigger; a loaded mailbox delivers the interrupted trigger first", async () => {
    const gate = deferred();
    const { hooks } = recorder();
    const first = new AgentMailbox("ann", { capacity: 5, overflow: "drop-oldest" }, () => gate.promise, hooks);
    first.push(event("e.one"));
    first.push(event("e.two"));
    const saved = first.toState();
    expect(saved.inFlight && topicOf(saved.inFlight)).toBe("e.one");
    expect(saved.queue.map(topicOf)).toEqual(["e.two"]);

    const order: string[] = [];
    const second = new AgentMailbox(
      "ann",
      { capacity: 5, overflow: "drop-oldest" },
      async (t) => {
        order.push(topicOf(t));
      },
      hooks,
    );
    second.load(saved);
    second.pump();
    await until(() => order.length === 2);
    expect(order).toEqual(["e.one", "e.two"]);
    expect(second.toState().delivered).toBe(2);
    gate.resolve();
  });
});
