export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
  /** Whether a message at this level would be written: a wrapper may skip the work of preparing one that is not. Absent: yes. */
  enabled?(level: Exclude<LogLevel, "silent">): boolean;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function envLevel(): LogLevel {
  const raw = typeof process !== "undefined" ? process.env.WEFT_LOG_LEVEL : undefined;
  return (LOG_LEVELS as readonly string[]).includes(raw ?? "") ? (raw as LogLevel) : "warn";
}

/** Fields every written line carries, read as it is written (the active trace's `trace_id` / `span_id`); none by default. */
let contextFields: (() => Record<string, string> | undefined) | undefined;

/** Sets what `createLogger`'s lines carry from the context they are written in (the process's tracing does). */
export function setLogContextFields(provider: (() => Record<string, string> | undefined) | undefined): void {
  contextFields = provider;
}

/** A levelled logger writing one line per message to stderr; quiet (warn) unless WEFT_LOG_LEVEL says otherwise. */
export function createLogger(scope = "weft", level: LogLevel = envLevel()): Logger {
  const enabled = (at: Exclude<LogLevel, "silent">) => rank[at] >= rank[level];
  const write = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (!enabled(at)) return;
    const ids = contextFields?.();
    const all = ids ? { ...fields, ...ids } : fields;
    const extra = all && Object.keys(all).length > 0 ? " " + JSON.stringify(all) : "";
    console.error(`${new Date().toISOString()} ${at.toUpperCase()} [${scope}] ${message}${extra}`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (sub) => createLogger(`${scope}:${sub}`, level),
    enabled,
  };
}

export const silentLogger: Logger = createLogger("silent", "silent");
