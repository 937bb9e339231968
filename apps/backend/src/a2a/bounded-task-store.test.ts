import { describe, expect, it } from "vitest";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { BoundedTaskStore } from "./bounded-task-store.ts";

const as = (userName: string) => new ServerCallContext({ user: { isAuthenticated: true, userName } });
const task = (id: string, text = "x") => ({ id, contextId: `c-${id}`, history: [], artifacts: [], metadata: { text } }) as unknown as Parameters<BoundedTaskStore["save"]>[0];

describe("BoundedTaskStore", () => {
  it("keeps at most two generations of tasks: a recent one stays readable, the oldest are dropped", async () => {
    const store = new BoundedTaskStore(3);
    const alice = as("alice");
    for (const id of ["t1", "t2", "t3"]) await store.save(task(id), alice);
    // A fourth task starts a new generation: t1–t3 are still readable from the older one.
    await store.save(task("t4"), alice);
    expect(await store.load("t1", alice)).toBeDefined();
    // t2 is updated: it moves to the newer generation and survives the next turn-over.
    await store.save(task("t2", "updated"), alice);
    await store.save(task("t5"), alice);
    await store.save(task("t6"), alice);
    for (const gone of ["t1", "t3"]) expect(await store.load(gone, alice)).toBeUndefined();
    expect((await store.load("t2", alice))?.metadata).toEqual({ text: "updated" });
    for (const kept of ["t4", "t5", "t6"]) expect(await store.load(kept, alice)).toBeDefined();
  });

  it("keeps each user's tasks to that user", async () => {
    const store = new BoundedTaskStore(3);
    await store.save(task("mine"), as("alice"));
    expect(await store.load("mine", as("bob"))).toBeUndefined();
    expect(await store.load("mine", as("alice"))).toBeDefined();
  });
});
