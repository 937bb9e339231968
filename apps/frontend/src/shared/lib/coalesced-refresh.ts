/**
 * Reads something again while events keep saying it changed. Requests that arrive during a read are
 * folded into one more read after it, `gapMs` later; `read` answers whether it needs another read at
 * once (e.g. its answer did not fit what is shown).
 */
export function coalescedRefresh(read: () => Promise<boolean>, gapMs: number): { request(): void } {
  let stale = false;
  let running = false;
  async function loop() {
    running = true;
    try {
      while (stale) {
        stale = false;
        if (await read()) stale = true;
        if (stale) await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
    } finally {
      running = false;
    }
  }
  return {
    request() {
      stale = true;
      if (!running) void loop();
    },
  };
}
