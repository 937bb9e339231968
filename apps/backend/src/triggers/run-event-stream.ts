import type { Logger } from "@weft/types";
import { messageOf } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { StoredEvent } from "../events/event-repository.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";

const ENDINGS = new Set(["run.completed", "run.failed", "run.cancelled"]);

/**
 * A run's events as Server-Sent Events (`id:` its seq, `event:` its type, `data:` its JSON), from its first stored
 * event to its last, then the stream ends. Events published while the stored ones are read are kept and sent after
 * them, each seq once.
 */
export function runEventStream(hub: EventHub, storage: RunsStorage, runId: string, log: Logger): Response {
  const encoder = new TextEncoder();
  let unsubscribe = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let sent = -1;
      let done = false;
      let pending: StoredEvent[] | undefined = [];
      const send = (events: StoredEvent[]) => {
        for (const e of events) {
          if (done || e.seq <= sent) continue;
          sent = e.seq;
          controller.enqueue(encoder.encode(`id: ${e.seq}\nevent: ${e.type}\ndata: ${e.json}\n\n`));
          if (ENDINGS.has(e.type)) {
            done = true;
            unsubscribe();
            controller.close();
          }
        }
      };
      unsubscribe = hub.subscribe(runId, (events) => (pending ? pending.push(...events) : send(events)));
      try {
        for (;;) {
          const page = await storage.events.listAfter(runId, sent, 1000);
          send(page);
          if (page.length < 1000 || done) break;
        }
        const held = pending;
        pending = undefined;
        send(held.sort((a, b) => a.seq - b.seq));
      } catch (error) {
        log.error("a hook's event stream failed", { runId, error: messageOf(error) });
        unsubscribe();
        controller.error(error);
      }
    },
    cancel() {
      unsubscribe();
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-weft-run-id": runId } });
}
