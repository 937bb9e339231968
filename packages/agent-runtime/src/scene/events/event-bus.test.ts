import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Logger, RunEventDraft } from "@weft/types";
import { EventBus, type BusEvent } from "./event-bus.ts";
import { compileTopicPattern } from "./topic-pattern.ts";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

describe("topic patterns", () => {
  it.each([
    ["task.*", "task.created", true],
    ["task.*", "task.created.late", false],
    ["task.*", "tasks.created", false],
    ["*", "any.topic.at.all", true],
    ["**", "a.b", true],
    ["game.**", "game.round", true],
    ["game.**", "game.round.ended", true],
    ["game.**", "chat.round", false],
    ["**.ended", "game.round.ended", true],
    ["**.ended", "game.round.started", false],
    ["a.**.z", "a.z", true],
    ["a.**.z", "a.b.c.z", true],
    ["a.*.z", "a.z", false],
    ["task.created", "task.created", true],
  ])("%s matches %s: %s", (pattern, topic, expected) => {
    expect(compileTopicPattern(pattern)(topic)).toBe(expected);
  });

  it("refuses a malformed pattern", () => {
    expect(() => compileTopicPattern("task..x")).toThrow(/Invalid topic pattern "task..x"/);
    expect(() => compileTopicPattern("task.*x")).toThrow(expect.objectContaining({ code: "INVALID_PATTERN" }));
    expect(() => compileTopicPattern("task")).toThrow(/matches no topic.*did you mean "task\.\*" or "task\.\*\*"/);
  });
});

describe("EventBus", () => {
  it("delivers to matching subscribers in publish order, nested publishes after the current event", async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe("task.*", (e) => {
      seen.push(`A:${e.topic}#${e.seq}`);
      if (e.topic === "task.created") void bus.publish("task.assigned", { to: "bob" }, "ann");
    });
    bus.subscribe("**", (e) => {
      seen.push(`B:${e.topic}#${e.seq}`);
    });
    bus.subscribe("chat.*", (e) => {
      seen.push(`C:${e.topic}`);
    });
    await bus.publish("task.created", { id: 1 }, "ann");
    await bus.publish("chat.said", "hi");
    expect(seen).toEqual(["A:task.created#1", "B:task.created#1", "A:task.assigned#2", "B:task.assigned#2", "B:chat.said#3", "C:chat.said"]);
  });

  it("keeps delivering when a subscriber throws or rejects", async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...quiet, warn: (m) => warnings.push(m), child: () => logger };
    const bus = new EventBus({ logger });
    const got: number[] = [];
    bus.subscribe("x.*", () => {
      throw new Error("sync failure");
    });
    bus.subscribe("x.*", async () => {
      throw new Error("async failure");
    });
    bus.subscribe("x.*", (e) => {
      got.push(e.payload as number);
    });
    await bus.publish("x.a", 1);
    await bus.publish("x.b", 2);
    await new Promise((r) => setTimeout(r, 0));
    expect(got).toEqual([1, 2]);
    expect(bus.subscriberFailures).toBe(4);
    expect(warnings).toHaveLength(4);
  });

  it("emits a scene.event for every publish and refuses bad topics and payloads", async () => {
    const drafts: RunEventDraft[] = [];
    const bus = new EventBus({ emit: (d) => drafts.push(d), payloadSchemas: { "score.changed": z.object({ by: z.number() }) } });
    await bus.publish("score.changed", { by: 2 }, "ann");
    expect(drafts).toEqual([{ type: "scene.event", topic: "score.changed", payload: { by: 2 }, source: "ann" }]);

    await expect(bus.publish("score", 1)).rejects.toMatchObject({ code: "INVALID_TOPIC", message: expect.stringContaining("namespace.name") });
    await expect(bus.publish("task.*", 1)).rejects.toThrow(/Wildcards are for subscriptions/);
    await expect(bus.publish("x.y", { f: () => 1 })).rejects.toMatchObject({
      code: "NOT_JSON",
      message: expect.stringContaining('Cannot store the value at f as the payload of "x.y": it is a function'),
    });
    await expect(bus.publish("score.changed", { by: "two" })).rejects.toMatchObject({ code: "INVALID_PAYLOAD", message: expect.stringContaining("by:") });
    expect(drafts).toHaveLength(1);
    expect(bus.lastSeq).toBe(1);
  });

  it("gives subscribers a frozen copy, so one cannot change what another sees", async () => {
    const bus = new EventBus();
    const payload = { list: [1] };
    const got: BusEvent[] = [];
    bus.subscribe("a.b", (e) => {
      (e.payload as { list: number[] }).list.push(2);
    });
    bus.subscribe("a.b", (e) => {
      got.push(e);
    });
    await bus.publish("a.b", payload);
    payload.list.push(3);
    expect(got[0].payload).toEqual({ list: [1] });
    expect(bus.subscriberFailures).toBe(1);
  });

  it("stops calling a subscriber once unsubscribed", async () => {
    const bus = new EventBus();
    const got: string[] = [];
    const off = bus.subscribe("a.*", (e) => {
      got.push(e.topic);
    });
    await bus.publish("a.one", null);
    off();
    await bus.publish("a.two", null);
    expect(got).toEqual(["a.one"]);
  });
});
