/** A child process a test spawned with stdout and stderr piped. */
type Child = ReturnType<typeof Bun.spawn>;

/** Gathers the child's stdout and stderr as they arrive; the answer reads everything written so far. */
export function collectOutput(proc: Child): () => string {
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>);
  void collect(proc.stderr as ReadableStream<Uint8Array>);
  return () => text;
}

/**
 * Waits until the output announces the child is ready (`announcement`'s first group: its URL, its id),
 * polling every 25 ms. Throws `<what> did not start` with the output when the child exits first or 120 s pass (a server
 * starts in about a second; on a busy 2-core machine it took over 20).
 */
export async function awaitAnnouncement(proc: Child, output: () => string, announcement: RegExp, what: string): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const found = announcement.exec(output())?.[1];
    if (found) return found;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start:\n${output()}`);
    await Bun.sleep(25);
  }
}

/**
 * Waits until a child that should refuse to start exits, or announces it started after all (then kills it, since a
 * started server never exits by itself). No time limit of its own: a refusal comes late in a start that on a busy
 * machine took over 20 s. Answers the exit code, or "started", with everything the child wrote.
 */
export async function exitOrAnnouncement(proc: Child, announcement: string): Promise<{ code: number | "started"; stdout: string; stderr: string }> {
  const stderr = new Response(proc.stderr as ReadableStream<Uint8Array>).text();
  let stdout = "";
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let started = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stdout += decoder.decode(value, { stream: true });
    if (stdout.includes(announcement)) {
      started = true;
      proc.kill("SIGKILL");
    }
  }
  const code = await proc.exited;
  return { code: started ? "started" : code, stdout, stderr: await stderr };
}
