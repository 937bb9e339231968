/** A local HTTP listener that counts the requests per path: what a workflow's `http:request` nodes did, as effects. */
export interface HitCounter {
  origin: string;
  count(path: string): number;
  stop(): Promise<void>;
}

export function startHitCounter(answer: unknown = { ok: true }): HitCounter {
  const hits = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      return Response.json(answer);
    },
  });
  return { origin: `http://127.0.0.1:${server.port}`, count: (path) => hits.get(path) ?? 0, stop: () => server.stop(true) };
}
