import type { PermissionAnswer, PermissionGate, PermissionRequest } from "@weft/types";

/**
 * The tool host's one `PermissionGate`, shared by every agent using that host: it hands each
 * question to the agent whose session asked it (the conversation id, which the agent binds to its
 * tool calls). A question nobody attends to is refused, with a reason the model can read.
 */
export class PermissionBroker implements PermissionGate {
  private readonly gates = new Map<string, PermissionGate>();

  /** Routes questions of `sessionId` to `gate`; returns the detach function. */
  attach(sessionId: string, gate: PermissionGate): () => void {
    this.gates.set(sessionId, gate);
    return () => {
      if (this.gates.get(sessionId) === gate) this.gates.delete(sessionId);
    };
  }

  request(request: PermissionRequest, options: { signal?: AbortSignal } = {}): Promise<PermissionAnswer> {
    const gate = request.sessionId === undefined ? undefined : this.gates.get(request.sessionId);
    if (!gate) return Promise.resolve({ answer: "reject", feedback: "Nobody can approve this call right now. Choose another way, or ask the user with ask_user." });
    return gate.request(request, options);
  }
}

interface Pending {
  request: PermissionRequest;
  settle: (answer: PermissionAnswer) => void;
}

/**
 * One agent's open permission questions: each waits until `answer` is called with its request id,
 * or until the run is cancelled (which refuses it).
 */
export class PendingPermissions implements PermissionGate {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly hooks: { onRequested(request: PermissionRequest): void; onAnswered(request: PermissionRequest, answer: PermissionAnswer): void }) {}

  request(request: PermissionRequest, options: { signal?: AbortSignal } = {}): Promise<PermissionAnswer> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.resolve({ answer: "reject", feedback: "The run was cancelled." });
    return new Promise<PermissionAnswer>((resolve) => {
      const onAbort = () => this.answer(request.requestId, { answer: "reject", feedback: "The run was cancelled." });
      this.pending.set(request.requestId, {
        request,
        settle: (answer) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.hooks.onRequested(request);
    });
  }

  /** Settles an open question; false when there is none with this id. */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const entry = this.pending.get(requestId);
    if (!entry) return false;
    this.pending.delete(requestId);
    this.hooks.onAnswered(entry.request, answer);
    entry.settle(answer);
    return true;
  }

  list(): PermissionRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  get size(): number {
    return this.pending.size;
  }
}
