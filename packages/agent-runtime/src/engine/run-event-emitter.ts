import type { Logger, NodeError, NodeValues, RunEvent, RunEventDraft, RunEventSink } from "@weft/types";

type Stamped = RunEventDraft & { streamId: string; seq: number; ts: number };

/**
 * Stamps events with the run's stream id, sequence number (from 0) and time, and hands them to the
 * sink. Hot path: callers check `enabled` before building an event, the per-node events are built
 * whole (one object, one shape), and nothing is re-validated.
 *
 * A node's `node.started` waits until something else happens: a node that completes within its own
 * call (an interface node, a template; nobody could have watched it run) is announced by one
 * `node.completed` carrying its type and inputs. A busy agent step runs six such nodes per deliberation,
 * and their starts were a quarter of the events it stored. Any other event, and `flushStart()` (the
 * node went asynchronous), sends the waiting start first, so the order of events is kept.
 */
export class RunEventEmitter {
  private seq = 0;
  private closed = false;
  private sinkFailed = false;
  /**
   * A node's first start not sent yet (sent before the next event, or folded into the node's own
   * completion), kept in fields rather than an object: one fewer allocation per node.
   */
  private pending = false;
  private pendingNodeId = "";
  private pendingInvocationId = "";
  private pendingNodeType = "";
  private pendingInputs: NodeValues = {};
  private pendingTs = 0;

  constructor(
    readonly streamId: string,
    private readonly sink: RunEventSink | undefined,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.sink !== undefined && !this.closed;
  }

  private deliver(event: RunEvent): void {
    try {
      this.sink!(event);
    } catch (err) {
      // A broken listener must not break the run; say so once.
      if (!this.sinkFailed) this.logger.warn("run event listener threw; the run goes on", { error: String(err) });
      this.sinkFailed = true;
    }
  }

  emit(draft: RunEventDraft): void {
    if (this.sink === undefined || this.closed) return;
    if (this.pending) this.flushStart();
    const event = draft as Stamped;
    event.streamId = this.streamId;
    event.seq = this.seq++;
    event.ts = Date.now();
    this.deliver(event as RunEvent);
  }

  /**
   * The node's start. A first attempt's is sent when anything else happens first (see the class comment); a retry's
   * at once (its node is running asynchronously already).
   */
  nodeStarted(nodeId: string, invocationId: string, nodeType: string, inputs: NodeValues, attempt: number, ts: number): void {
    if (this.pending) this.flushStart();
    if (attempt === 1) {
      this.pending = true;
      this.pendingNodeId = nodeId;
      this.pendingInvocationId = invocationId;
      this.pendingNodeType = nodeType;
      this.pendingInputs = inputs;
      this.pendingTs = ts;
    } else this.deliver({ type: "node.started", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, nodeType, inputs, attempt });
  }

  /** Sends the start still waiting, if any: its node goes on asynchronously, and watchers must see it running. */
  flushStart(): void {
    if (!this.pending) return;
    this.pending = false;
    this.deliver({
      type: "node.started",
      streamId: this.streamId,
      seq: this.seq++,
      nodeId: this.pendingNodeId,
      invocationId: this.pendingInvocationId,
      nodeType: this.pendingNodeType,
      inputs: this.pendingInputs,
      ts: this.pendingTs,
      attempt: 1,
    });
  }

  /**
   * The node's outputs are final. When its start was not sent (it completed within its call) or the cache
   * served it (it never started), the event carries the node's type and inputs.
   */
  nodeCompleted(nodeId: string, invocationId: string, nodeType: string, inputs: NodeValues, outputs: NodeValues, durationMs: number, cached: boolean, ts: number): void {
    const folded = this.pending && this.pendingInvocationId === invocationId;
    if (folded) this.pending = false;
    else if (this.pending) this.flushStart();
    if (folded || cached) this.deliver({ type: "node.completed", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, outputs, durationMs, cached, nodeType, inputs });
    else this.deliver({ type: "node.completed", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, outputs, durationMs, cached });
  }

  /** `handledOutputs`: the node sends its error on (policy `route`); these are its outputs (the `$error` one). */
  nodeFailed(nodeId: string, invocationId: string, error: NodeError, durationMs: number, ts: number, handledOutputs?: NodeValues): void {
    if (this.pending) this.flushStart();
    this.deliver({ type: "node.failed", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, error, durationMs, ...(handledOutputs ? { handled: true, outputs: handledOutputs } : {}) });
  }

  nodeSkipped(nodeId: string, reason: string, causeNodeId: string | undefined): void {
    this.emit({ type: "node.skipped", nodeId, reason, ...(causeNodeId !== undefined ? { causeNodeId } : {}) });
  }

  /** After the final run event nothing more is emitted (e.g. by a node that ignored cancellation). */
  close(): void {
    this.closed = true;
  }
}
