import { readdirSync, readFileSync } from "node:fs";

/** Where a process's CPU time went, in ms, by kind of thread. */
export interface ThreadCpu {
  /** The JavaScript thread: the measured code, and the garbage collection it does itself. */
  main: number;
  /** JavaScriptCore's compiler threads. */
  jit: number;
  /** JavaScriptCore's collector and helper threads, and the allocator's scavenger. */
  gc: number;
  /** Everything else: Bun's HTTP client, its thread pool, … */
  other: number;
}

/** /proc reports thread times in USER_HZ ticks, 100 a second on Linux whatever the kernel's own tick. */
const MS_PER_TICK = 10;

function kindOf(tid: string, name: string): keyof ThreadCpu {
  if (tid === String(process.pid)) return "main";
  if (name.includes("JIT")) return "jit";
  if (/Heap|Collector|scavenger/i.test(name)) return "gc";
  return "other";
}

/**
 * The CPU time of each of this process's threads so far, summed by kind (Linux only; zeros elsewhere). Two readings'
 * difference (`threadCpuSince`) shows where a bench's `process.cpuUsage()` went: tracing's extra cost, for one, lies
 * mostly outside its own functions (bench/agent.bench.ts).
 */
export function threadCpu(): ThreadCpu {
  const out: ThreadCpu = { main: 0, jit: 0, gc: 0, other: 0 };
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // "tid (name) state …": the name may hold spaces and parentheses, so split after its last ")".
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the name.
    out[kindOf(tid, name)] += (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  }
  return out;
}

/** `threadCpu()` now minus `start`, per step (ms, three decimals); a thread that ended in between is not counted (its kind can read below zero). */
export function threadCpuSince(start: ThreadCpu, steps: number): ThreadCpu {
  const now = threadCpu();
  const per = (kind: keyof ThreadCpu) => Math.round(((now[kind] - start[kind]) / steps) * 1000) / 1000;
  return { main: per("main"), jit: per("jit"), gc: per("gc"), other: per("other") };
}
