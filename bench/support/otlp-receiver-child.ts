import { join } from "node:path";

/** The OTLP receiver of `otlp-receiver-process.ts` as a child process: its URL, and `stop()` → how many spans it got. */
export interface ReceiverProcess {
  url: string;
  stopped: boolean;
  stop(): Promise<{ spans: number; rejected: number }>;
}

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  // Without the JavaScriptCore options (BUN_JSC_*): a bench run with e.g. BUN_JSC_reportCompileTimes=1 would mix the
  // receiver's compilations into the measured process's report.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("BUN_JSC_")));
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "otlp-receiver-process.ts")], { stdout: "pipe", stderr: "inherit", env });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const end = buffered.indexOf("\n");
      if (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the OTLP receiver process ended before answering");
      buffered += decoder.decode(value, { stream: true });
    }
  };
  const { url } = JSON.parse(await nextLine()) as { url: string };
  const child: ReceiverProcess = {
    url,
    stopped: false,
    async stop() {
      child.stopped = true;
      proc.kill("SIGTERM");
      const counts = JSON.parse(await nextLine()) as { spans: number; rejected: number };
      await proc.exited;
      return counts;
    },
  };
  return child;
}
