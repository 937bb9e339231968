import type { LlmService } from "@weft/types";

/**
 * Cooperative time slicing of scene work on the request thread. Scenes share the event loop with
 * HTTP and WebSocket handling; with a fast model, agents hand each other work faster than it can be
 * done, and every reply's processing (action parsing, the deliberation workflow, storing) would run
 * back to back while requests wait behind it. So each such piece of work first asks for a turn:
 * turns are handed out one per event-loop iteration, oldest first, so requests that arrived in the
 * meantime are read and answered between any two pieces of scene work. When nothing else waits,
 * an iteration costs microseconds: a busy scene still uses the CPU it can get.
 */
export class SceneTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;
  private granted = 0;

  /** Resolves when it is the caller's turn: in a later event-loop iteration, after the ones asked before it. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** How many callers wait for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** How many turns were handed out so far. */
  get handedOut(): number {
    return this.granted;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // setImmediate, not a microtask or a 0 ms timer: it runs after the loop has polled for I/O (so a
    // request that came in meanwhile is handled first), and without a timer's millisecond granularity.
    setImmediate(() => {
      this.scheduled = false;
      const next = this.waiting.shift();
      if (next) {
        this.granted++;
        next();
      }
      this.schedule();
    });
  }
}

/**
 * The model service as a scene's agents use it: the processing of a reply waits for a turn, so a
 * burst of replies is worked through one per loop iteration instead of all at once.
 */
export function turnTakingLlm(llm: LlmService, turns: SceneTurns): LlmService {
  return {
    chat: async (request, options) => {
      const result = await llm.chat(request, options);
      await turns.turn();
      return result;
    },
  };
}
