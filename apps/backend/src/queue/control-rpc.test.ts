import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { silentLogger } from "@weft/types";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { ServiceError } from "../service-error.ts";
import { openRedis } from "./queue-names.ts";
import { ControlClient, ControlServer, holderKey } from "./control-rpc.ts";
import { deriveQueueKey, QueueSeal } from "./queue-seal.ts";
import { randomBytes } from "node:crypto";
import { until } from "../testing/until.ts";

const seal = new QueueSeal(Buffer.alloc(32, 7), silentLogger);

describe("control requests to the worker holding an agent or a scene", () => {
  let redis: TestRedis;
  const connections: Redis[] = [];
  const open = async (name: string) => {
    const connection = await openRedis(redis.url, name, silentLogger);
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await redis.stop();
  });

  it("reaches only the holder, carries its answer and its refusal, and says when nobody holds the thing", async () => {
    const seen: string[] = [];
    const workers = await Promise.all(
      ["w1", "w2"].map(async (name) => {
        const server = new ControlServer(
          name,
          await open(`${name}:cmd`),
          await open(`${name}:sub`),
          async (kind, id, op, args) => {
            seen.push(`${name}:${kind}:${id}:${op}`);
            if (op === "refuse") throw new ServiceError("NOT_FOUND", "nothing waits for permission", { requestId: "r1" });
            return { echoed: args, by: name };
          },
          seal,
          silentLogger,
        );
        await server.start();
        return server;
      }),
    );
    const client = new ControlClient("api", await open("api:cmd"), await open("api:sub"), seal, 2000);
    await client.start();

    expect(await client.call("scene", "s1", "pause")).toEqual({ held: false });
    await workers[1]!.hold("scene", "s1");
    expect(await client.call("scene", "s1", "pause", { at: 3 })).toEqual({ held: true, value: { echoed: { at: 3 }, by: "w2" } });
    expect(seen).toEqual(["w2:scene:s1:pause"]);

    const refused = await client.call("scene", "s1", "refuse").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ code: "NOT_FOUND", message: "nothing waits for permission", details: { requestId: "r1" } });

    // Another worker took it over: w2's release must not remove w1's hold.
    await workers[0]!.hold("scene", "s1");
    await workers[1]!.release("scene", "s1");
    expect(await client.holder("scene", "s1")).toBe("w1");
    await workers[0]!.release("scene", "s1");
    expect(await client.holder("scene", "s1")).toBeUndefined();
  });

  it("answers SERVICE_UNAVAILABLE when the holder is gone without releasing", async () => {
    const commands = await open("client:cmd");
    const client = new ControlClient("api2", commands, await open("api2:sub"), seal, 2000);
    await client.start();
    await commands.set(holderKey("agent", "c1"), "killed-worker");
    const error = await client.call("agent", "c1", "cancel").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { holder: "killed-worker" } });
  });

  it("ignores a control request nobody with the installation's key sealed: the handler never runs, the drop is counted", async () => {
    const handled: string[] = [];
    const workerSeal = new QueueSeal(deriveQueueKey(randomBytes(32)), silentLogger);
    const server = new ControlServer("w-forged", await open("wf:cmd"), await open("wf:sub"), async (_kind, id, op) => void handled.push(`${id}:${op}`), workerSeal, silentLogger);
    await server.start();
    const attacker = await open("attacker");
    const request = { callId: "c1", replyTo: "weft:control-reply:attacker", kind: "scene", id: "s1", op: "stop", args: null };
    expect(await attacker.publish("weft:control:w-forged", JSON.stringify(request))).toBe(1);
    expect(await attacker.publish("weft:control:w-forged", seal.wrap("weft:control:w-forged", request))).toBe(1);
    await until("the worker to run or drop both requests", () => (handled.length === 2 || workerSeal.rejected().get("bad_signature") === 1 ? true : undefined));
    expect(handled).toEqual([]);
    expect(workerSeal.rejected().get("unsigned")).toBe(1);
  });
});
