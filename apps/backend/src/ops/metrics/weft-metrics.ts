import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { StoredEvent } from "../../events/event-repository.ts";
import { sourceEvent } from "../../events/event-journal.ts";
import type { RunQueueProbe } from "../queue-probe.ts";
import type { UsageRecord } from "../../usage/index.ts";

/** Seconds. Runs last from a millisecond (a template) to minutes (an agent's deliberation). */
const RUN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds. Most nodes are sub-millisecond; LLM calls and HTTP requests take seconds. */
const NODE_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120];

/** The final status a run event announces; the label of `weft_runs_finished_total`. */
type FinalRunStatus = "completed" | "failed" | "cancelled";

/** Only these events are decoded: the others pass by with a look at their `type`. */
const OBSERVED = new Set(["run.started", "run.waiting", "node.started", "node.completed", "node.failed", "run.completed", "run.failed", "run.cancelled"]);

interface DecodedEvent {
  type: string;
  streamId: string;
  invocationId?: string;
  nodeType?: string;
  durationMs?: number;
  cached?: boolean;
}

/** Queue depth, active runs, workers and the mode, read from the probe at each scrape. */
function queueGauges(queue: RunQueueProbe, registers: Registry[]): void {
  const probed = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers,
      collect: async function (this: Gauge) {
        this.set(await read());
      },
    });
  probed("weft_runs_active", "Runs executing now in this process (embedded mode) or on the queue's workers (queue mode).", () => queue.active());
  probed("weft_queue_depth", "Runs waiting for a free slot (embedded mode) or a worker (queue mode).", () => queue.waiting());
  probed("weft_workers_active", "Worker processes connected to the run queue; 0 in the embedded mode, where this process runs every run.", () => queue.workers());
  const jobs = queue.otherJobs?.bind(queue);
  if (jobs)
    new Gauge({
      name: "weft_queue_jobs",
      help: "Queue mode: jobs of the agents' queue (one per conversation loop) and the scenes' queue (one per running scene), waiting for a worker or held by one.",
      labelNames: ["queue", "state"],
      registers,
      collect: async function (this: Gauge<"queue" | "state">) {
        for (const { queue: name, waiting, active } of await jobs()) {
          this.set({ queue: name, state: "waiting" }, waiting);
          this.set({ queue: name, state: "active" }, active);
        }
      },
    });
  new Gauge({ name: "weft_queue_mode", help: "1 when runs go through the Redis queue to workers, 0 when they run in this process.", registers }).set(queue.mode === "queue" ? 1 : 0);
}

/**
 * prom-client's process metrics without those Bun cannot fill or misnames: the libuv handle, request
 * and resource gauges (Bun has no libuv lists; their `…_total` gauges also break the exposition's
 * rule that only counters end in `_total`), and `nodejs_version_info`, which would report the Node
 * version Bun emulates. Bun's own version is `weft_bun_version_info`.
 */
const UNFILLED_DEFAULTS = ["active_handles", "active_handles_total", "active_requests", "active_requests_total", "active_resources", "active_resources_total", "version_info"];

function runtimeMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: "weft_" });
  for (const name of UNFILLED_DEFAULTS) registry.removeSingleMetric(`weft_nodejs_${name}`);
  const [major, minor, patch] = Bun.version.split(".").map((part) => Number.parseInt(part, 10));
  new Gauge({ name: "weft_bun_version_info", help: "Bun version info.", labelNames: ["version", "major", "minor", "patch"], registers: [registry] }).set(
    { version: `v${Bun.version}`, major, minor, patch },
    1,
  );
}

/** Queue mode: jobs and messages read from Redis and dropped, by reason (the source keeps the counts; read at each scrape). */
export type QueueRejections = () => ReadonlyMap<string, number>;

function rejectionCounter(read: QueueRejections, registers: Registry[]): void {
  new Counter({
    name: "weft_queue_rejected_total",
    help: "Queue mode: jobs, control calls and announcements read from Redis and dropped because their seal was missing, wrong, stale or replayed (or their shape was not Weft's), by reason.",
    labelNames: ["reason"],
    registers,
    collect: function (this: Counter<"reason">) {
      this.reset();
      for (const [reason, count] of read()) this.inc({ reason }, count);
    },
  });
}

/**
 * The server's Prometheus metrics, in a registry of its own (several servers may share a process in
 * tests). Run and node figures are fed from the events the journal has stored (the hub's tap), so a
 * scrape costs no database query; queue depth and workers are read from the run queue when scraped.
 */
export class WeftMetrics {
  readonly registry = new Registry();
  private readonly runsStarted: Counter;
  private readonly runsFinished: Counter<"status">;
  private readonly runsPaused: Counter;
  private readonly runDuration: Histogram<"status">;
  private readonly nodeDuration: Histogram<"node_type" | "status">;
  private readonly nodeCacheHits: Counter;
  private readonly llmCalls: Counter<"profile" | "model" | "estimated">;
  private readonly llmTokens: Counter<"profile" | "model" | "kind">;
  private readonly llmCost: Counter<"profile" | "model">;
  /** Labelled children by their labels: `labels()` validates and hashes its labels at each call, and every node event makes one. */
  private readonly nodeDurations = new Map<string, Histogram.Internal<"node_type" | "status">>();
  private readonly finished: Record<FinalRunStatus, { count: Counter.Internal; duration: Histogram.Internal<"status"> }>;
  /** Per run stream: the node type of each started invocation, until its final event (a node.completed after a node.started has no type). */
  private readonly invocationTypes = new Map<string, Map<string, string>>();
  /** Runs this process saw pause (run.waiting): their next run.started is a resume, not another run. */
  private readonly paused = new Set<string>();

  /** Without `queue` (a worker process), the queue gauges are left to the API process that owns the queue. */
  constructor(queue: RunQueueProbe | undefined, options: { defaultMetrics?: boolean; queueRejections?: QueueRejections } = {}) {
    const registers = [this.registry];
    this.runsStarted = new Counter({ name: "weft_runs_started_total", help: "Runs that started executing (run.started events).", registers });
    this.runsPaused = new Counter({
      name: "weft_runs_paused_total",
      help: "Times a run paused to wait for a decision (run.waiting events); its resume is not counted as another started run.",
      registers,
    });
    this.runsFinished = new Counter({ name: "weft_runs_finished_total", help: "Runs that ended, by final status.", labelNames: ["status"], registers });
    this.runDuration = new Histogram({ name: "weft_run_duration_seconds", help: "Duration of finished runs, by final status.", labelNames: ["status"], buckets: RUN_BUCKETS, registers });
    this.nodeDuration = new Histogram({
      name: "weft_node_duration_seconds",
      help: "Duration of executed node invocations (cache hits excluded), by node type and outcome.",
      labelNames: ["node_type", "status"],
      buckets: NODE_BUCKETS,
      registers,
    });
    this.llmCalls = new Counter({
      name: "weft_llm_calls_total",
      help: "LLM calls answered in this process, by LLM profile and model; estimated=true when the provider reported no usage.",
      labelNames: ["profile", "model", "estimated"],
      registers,
    });
    this.llmTokens = new Counter({
      name: "weft_llm_tokens_total",
      help: "Tokens of the LLM calls answered in this process, by LLM profile, model and kind (prompt, completion; cached is part of prompt, reasoning of completion).",
      labelNames: ["profile", "model", "kind"],
      registers,
    });
    this.llmCost = new Counter({
      name: "weft_llm_cost_usd_total",
      help: "US dollars of the LLM calls answered in this process at their profile's prices, by LLM profile and model (calls at unknown prices add nothing).",
      labelNames: ["profile", "model"],
      registers,
    });
    this.nodeCacheHits = new Counter({ name: "weft_node_cache_hits_total", help: "Node invocations served from the output cache.", registers });
    const finished = (status: FinalRunStatus) => {
      const count = this.runsFinished.labels(status);
      count.inc(0);
      return { count, duration: this.runDuration.labels(status) };
    };
    this.finished = { completed: finished("completed"), failed: finished("failed"), cancelled: finished("cancelled") };
    if (queue) queueGauges(queue, registers);
    if (options.queueRejections) rejectionCounter(options.queueRejections, registers);
    if (options.defaultMetrics !== false) runtimeMetrics(this.registry);
  }

  /** The hub's tap: called with every batch of events once it is stored. A malformed event is skipped, never thrown. */
  /** One LLM call's usage, as the usage recorder stored it. */
  readonly llmUsage = (record: UsageRecord): void => {
    const { profileId: profile, model, usage } = record;
    this.llmCalls.inc({ profile, model, estimated: String(usage.estimated === true) });
    this.llmTokens.inc({ profile, model, kind: "prompt" }, usage.promptTokens);
    this.llmTokens.inc({ profile, model, kind: "completion" }, usage.completionTokens);
    this.llmTokens.inc({ profile, model, kind: "cached" }, usage.cachedTokens ?? 0);
    this.llmTokens.inc({ profile, model, kind: "reasoning" }, usage.reasoningTokens ?? 0);
    if (record.costUsd !== undefined) this.llmCost.inc({ profile, model }, record.costUsd);
  };

  readonly observe = (events: readonly StoredEvent[]): void => {
    for (const stored of events) {
      if (!OBSERVED.has(stored.type)) continue;
      // This process's own events come with the object they were made from: a node's start carries its inputs, often many KB to parse.
      let event = sourceEvent(stored) as DecodedEvent | undefined;
      if (event === undefined) {
        try {
          event = JSON.parse(stored.json) as DecodedEvent;
        } catch {
          continue;
        }
      }
      this.count(stored.streamId, stored.type, event);
    }
  };

  private count(streamId: string, type: string, event: DecodedEvent): void {
    switch (type) {
      case "run.started":
        // A resumed run (paused here before) is the same run starting again.
        if (!this.paused.delete(streamId)) this.runsStarted.inc();
        return;
      case "run.waiting":
        this.invocationTypes.delete(streamId);
        this.paused.add(streamId);
        this.runsPaused.inc();
        return;
      case "node.started":
        if (event.invocationId !== undefined && event.nodeType !== undefined) this.typesOf(streamId).set(event.invocationId, event.nodeType);
        return;
      case "node.completed":
      case "node.failed": {
        const nodeType = event.nodeType ?? (event.invocationId !== undefined ? this.invocationTypes.get(streamId)?.get(event.invocationId) : undefined);
        if (event.invocationId !== undefined) this.invocationTypes.get(streamId)?.delete(event.invocationId);
        if (event.cached === true) {
          this.nodeCacheHits.inc();
          return;
        }
        if (typeof event.durationMs === "number") this.nodeDurationOf(nodeType ?? "unknown", type === "node.completed" ? "completed" : "failed").observe(event.durationMs / 1000);
        return;
      }
      case "run.completed":
      case "run.failed":
      case "run.cancelled": {
        this.invocationTypes.delete(streamId);
        this.paused.delete(streamId);
        const status: FinalRunStatus = type === "run.completed" ? "completed" : type === "run.failed" ? "failed" : "cancelled";
        const finished = this.finished[status];
        finished.count.inc();
        if (typeof event.durationMs === "number") finished.duration.observe(event.durationMs / 1000);
        return;
      }
      default:
        return;
    }
  }

  private nodeDurationOf(nodeType: string, status: "completed" | "failed"): Histogram.Internal<"node_type" | "status"> {
    const key = `${status}:${nodeType}`;
    let child = this.nodeDurations.get(key);
    if (!child) this.nodeDurations.set(key, (child = this.nodeDuration.labels(nodeType, status)));
    return child;
  }

  private typesOf(streamId: string): Map<string, string> {
    let types = this.invocationTypes.get(streamId);
    if (!types) this.invocationTypes.set(streamId, (types = new Map()));
    return types;
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
