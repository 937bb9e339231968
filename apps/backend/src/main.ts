import { createLogger, messageOf } from "@weft/types";
import { DataDirInUseError } from "./storage/data-dir-lock.ts";
import { PortInUseError } from "./port-in-use-error.ts";
import { configFromEnv, ConfigError } from "./config.ts";
import { createServer, type WeftServer } from "./server.ts";
import { AccessTokenError } from "./auth/access-token.ts";
import { MasterKeyError } from "./secrets/master-key.ts";
import { describeDatabaseUrl, PostgresUnavailableError } from "./storage/postgres-connection.ts";
import { SchemaTooNewError } from "./storage/migrations.ts";
import { SchemaTooOldError } from "./storage/legacy-sqlite.ts";

/** `bun apps/backend/src/main.ts`: Weft's server with the settings of the environment. */
const log = createLogger("weft");
let config;
try {
  config = configFromEnv(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}

let server: WeftServer;
try {
  server = await createServer({
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    dbPoolSize: config.dbPoolSize,
    ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    port: config.port,
    hostname: config.hostname,
    ...(config.secret ? { secret: config.secret } : {}),
    ...(config.authToken ? { authToken: config.authToken } : {}),
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    ...(config.examplesDir ? { examplesDir: config.examplesDir } : {}),
    ...(config.projectDir ? { projectDir: config.projectDir } : {}),
    runConcurrency: config.runConcurrency,
    maxQueuedRuns: config.maxQueuedRuns,
    maxBodyBytes: config.maxBodyBytes,
    maxOutputBytes: config.maxOutputBytes,
    shutdownGraceMs: config.shutdownGraceMs,
    approvalSweepMs: config.approvalSweepMs,
    v1Concurrency: config.v1Concurrency,
    demoLlm: config.demoLlm,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    logger: log,
  });
} catch (error) {
  // Settings the user must fix: their message, not a stack trace.
  const mustFix =
    error instanceof AccessTokenError ||
    error instanceof MasterKeyError ||
    error instanceof PostgresUnavailableError ||
    error instanceof SchemaTooNewError ||
    error instanceof SchemaTooOldError ||
    error instanceof PortInUseError ||
    error instanceof DataDirInUseError;
  if (!mustFix) throw error;
  console.error(error.message);
  process.exit(2);
}
console.log(`Weft is running on ${server.url} (data: ${config.dataDir}${config.databaseUrl ? `, database: ${describeDatabaseUrl(config.databaseUrl)}` : ""})`);
// The URL describer drops a password, which Redis URLs carry the same way.
if (config.redisUrl) console.log(`Queue mode: runs, agents' conversation loops and scenes go to \`weft worker\` processes through ${describeDatabaseUrl(config.redisUrl)}`);
console.log(`Open the editor: ${server.editorUrl}`);
console.log("Ctrl+C stops Weft (running runs finish first; a second Ctrl+C stops at once).");
if (!isLoopbackBind(config.hostname) && config.allowedHosts.length === 0) {
  console.warn(`Weft listens on ${config.hostname}, but browsers may only reach it by a loopback name until WEFT_ALLOWED_HOSTS lists the names they use.`);
}

/**
 * One Ctrl-C under `npm start` reaches the server twice at once (the terminal signals the whole process group, and
 * `bun run` passes it on), so a signal within this time of the first is the same request; one after it is the user
 * asking again, and the server exits without waiting.
 */
const SAME_SIGNAL_MS = 1000;
let firstSignalAt: number | undefined;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      console.error("Second signal: exiting without waiting for runs to finish.");
      process.exit(1);
    }
    firstSignalAt = Date.now();
    console.log(`${signal}: finishing running runs, then stopping…`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error("shutdown failed", { error: messageOf(error) });
        process.exit(1);
      },
    );
  });
}

function isLoopbackBind(host: string): boolean {
  return host === "localhost" || host.startsWith("127.") || host === "::1";
}
