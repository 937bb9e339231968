import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { suppressTracing } from "@opentelemetry/core";
import { emptyResource } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, type Sampler } from "@opentelemetry/sdk-trace";
import type { RecordedSpan, SpanLimits } from "./recorded-span.ts";
import { RecordingTracer } from "./recording-tracer.ts";

const LIMITS: SpanLimits = { attributeCountLimit: 128, attributeValueLengthLimit: Infinity, eventCountLimit: 128, linkCountLimit: 128 };

function tracerWith(sampler: Sampler = new AlwaysOnSampler(), limits: SpanLimits = LIMITS) {
  const ended: RecordedSpan[] = [];
  const tracer = new RecordingTracer(sampler, { resource: emptyResource(), scope: { name: "weft" }, limits, ended: (span) => ended.push(span) });
  return { tracer, ended };
}

describe("RecordingTracer: the SDK tracer's decisions, spans the exporter reads", () => {
  // The context manager a traced process registers (process-tracing.ts): without one, `context.with` keeps no context.
  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  it("a child joins its parent's trace under the parent's span; a root span starts a trace of its own", () => {
    const { tracer, ended } = tracerWith();
    const parent = tracer.startSpan("run", {}, ROOT_CONTEXT);
    const child = tracer.startSpan("node", {}, trace.setSpan(ROOT_CONTEXT, parent));
    const root = tracer.startSpan("other", { root: true }, trace.setSpan(ROOT_CONTEXT, parent));
    for (const span of [child, root, parent]) span.end();

    expect(ended.map((s) => s.name)).toEqual(["node", "other", "run"]);
    const [c, r, p] = ended;
    expect(c!.spanContext().traceId).toBe(p!.spanContext().traceId);
    expect(c!.parentSpanContext?.spanId).toBe(p!.spanContext().spanId);
    expect(p!.parentSpanContext).toBeUndefined();
    expect(r!.parentSpanContext).toBeUndefined();
    expect(r!.spanContext().traceId).not.toBe(p!.spanContext().traceId);
    expect(p!.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    // Times are the span's own: it ended after it started, within this test's clock.
    expect(p!.endMs).toBeGreaterThanOrEqual(p!.startMs);
    expect(p!.startMs).toBeGreaterThan(Date.now() - 60_000);
  });

  it("follows the sampler: a dropped span records nothing but carries its context; a suppressed context gets an invalid one", () => {
    const { tracer, ended } = tracerWith(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const dropped = tracer.startSpan("root", {}, ROOT_CONTEXT);
    expect(dropped.isRecording()).toBe(false);
    expect(dropped.spanContext().traceFlags).toBe(TraceFlags.NONE);
    const child = tracer.startSpan("child", {}, trace.setSpan(ROOT_CONTEXT, dropped));
    expect(child.isRecording()).toBe(false);
    expect(child.spanContext().traceId).toBe(dropped.spanContext().traceId);
    dropped.end();
    child.end();
    expect(ended).toEqual([]);

    const on = tracerWith();
    const suppressed = on.tracer.startSpan("quiet", {}, suppressTracing(ROOT_CONTEXT));
    expect(trace.isSpanContextValid(suppressed.spanContext())).toBe(false);
    suppressed.end();
    expect(on.ended).toEqual([]);
  });

  it("a sampler that records without sampling gets a recorded span flagged unsampled, with the sampler's attributes", () => {
    const recordOnly: Sampler = { shouldSample: () => ({ decision: SamplingDecision.RECORD, attributes: { "sampler.said": "record" } }), toString: () => "record-only" };
    const { tracer, ended } = tracerWith(recordOnly);
    tracer.startSpan("kept", { attributes: { a: 1 } }, ROOT_CONTEXT).end();
    expect(ended).toHaveLength(1);
    expect(ended[0]!.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(ended[0]!.attributes).toEqual({ a: 1, "sampler.said": "record" });
  });

  it("keeps attributes within the span limits, drops what is not an attribute value, and counts what it dropped", () => {
    const { tracer, ended } = tracerWith(new AlwaysOnSampler(), { ...LIMITS, attributeCountLimit: 3, attributeValueLengthLimit: 4 });
    const span = tracer.startSpan("s", { attributes: { gone: undefined, text: "abcdefgh", list: ["abcdefgh", "ab"] } }, ROOT_CONTEXT);
    span.setAttribute("bad", { nested: true } as never);
    span.setAttribute("n", 7);
    span.setAttribute("over", "limit");
    span.setAttribute("text", "replaced");
    span.end();
    span.setAttribute("late", 1);

    expect(ended[0]!.attributes).toEqual({ text: "repl", list: ["abcd", "ab"], n: 7 });
    expect(ended[0]!.droppedAttributesCount).toBe(2);
  });

  it("sets status as the specification says: OK is final, UNSET changes nothing, only an error carries a message", () => {
    const { tracer, ended } = tracerWith();
    const failed = tracer.startSpan("failed", {}, ROOT_CONTEXT);
    failed.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    failed.setStatus({ code: SpanStatusCode.UNSET });
    failed.end();
    const ok = tracer.startSpan("ok", {}, ROOT_CONTEXT);
    ok.setStatus({ code: SpanStatusCode.OK, message: "ignored" });
    ok.setStatus({ code: SpanStatusCode.ERROR, message: "too late" });
    ok.end();
    ok.end();

    expect(ended.map((s) => s.status)).toEqual([{ code: SpanStatusCode.ERROR, message: "boom" }, { code: SpanStatusCode.OK }]);
  });

  it("records events and exceptions, and an end before the start ends where it started", () => {
    const { tracer, ended } = tracerWith();
    const span = tracer.startSpan("s", {}, ROOT_CONTEXT);
    span.addEvent("retry", { attempt: 2 });
    span.recordException(Object.assign(new Error("disk full"), { code: "ENOSPC" }));
    span.end(0);

    const [s] = ended;
    expect(s!.events.map((e) => [e.name, e.attributes?.attempt ?? e.attributes?.["exception.type"]])).toEqual([
      ["retry", 2],
      ["exception", "ENOSPC"],
    ]);
    expect(s!.endMs).toBe(s!.startMs);
    expect(s!.duration).toEqual([0, 0]);
  });

  it("startActiveSpan runs its function in the span's context", () => {
    const { tracer, ended } = tracerWith();
    const seen = tracer.startActiveSpan("active", (span) => {
      const active = trace.getSpan(context.active());
      span.end();
      return active === span;
    });
    expect(seen).toBe(true);
    expect(ended.map((s) => s.name)).toEqual(["active"]);
  });
});
