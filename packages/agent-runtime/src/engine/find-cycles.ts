/**
 * Finds cycles among the nodes Kahn's algorithm could not order (`stuck`), each as the node indices
 * in edge order. Iterative depth-first search with an explicit stack: graphs of any depth are fine.
 */
/** Cycles reported at most: a tangle of many cycles is named by a few, and the search stays bounded. */
const MAX_REPORTED_CYCLES = 20;

export function findCycles(stuck: Uint8Array, outStart: Int32Array, outDst: Int32Array, maxCycles = MAX_REPORTED_CYCLES): number[][] {
  const n = stuck.length;
  // 0 = unvisited, 1 = on the current path, 2 = done.
  const colour = new Uint8Array(n);
  const cursor = new Int32Array(n);
  const path: number[] = [];
  const positionOnPath = new Int32Array(n).fill(-1);
  const cycles: number[][] = [];

  for (let root = 0; root < n && cycles.length < maxCycles; root++) {
    if (!stuck[root] || colour[root] !== 0) continue;
    colour[root] = 1;
    cursor[root] = outStart[root];
    positionOnPath[root] = path.length;
    path.push(root);
    while (path.length > 0) {
      const node = path[path.length - 1];
      if (cursor[node] < outStart[node + 1]) {
        const next = outDst[cursor[node]++];
        if (!stuck[next]) continue;
        if (colour[next] === 0) {
          colour[next] = 1;
          cursor[next] = outStart[next];
          positionOnPath[next] = path.length;
          path.push(next);
        } else if (colour[next] === 1 && cycles.length < maxCycles) {
          cycles.push(path.slice(positionOnPath[next]));
        }
      } else {
        colour[node] = 2;
        positionOnPath[node] = -1;
        path.pop();
      }
    }
  }
  return cycles;
}
