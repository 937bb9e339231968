import { createLogger } from "@weft/types";
import { configFromEnv, ConfigError } from "./config.ts";
import { createServer } from "./server.ts";

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

const server = await createServer({
  dataDir: config.dataDir,
  port: config.port,
  hostname: config.hostname,
  ...(config.secret ? { secret: config.secret } : {}),
  ...(config.examplesDir ? { examplesDir: config.examplesDir } : {}),
  ...(config.projectDir ? { projectDir: config.projectDir } : {}),
  runConcurrency: config.runConcurrency,
  maxQueuedRuns: config.maxQueuedRuns,
  maxBodyBytes: config.maxBodyBytes,
  shutdownGraceMs: config.shutdownGraceMs,
  demoLlm: config.demoLlm,
  logger: log,
});
console.log(`Weft is running on ${server.url} (data: ${config.dataDir})`);

let signals = 0;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    signals++;
    if (signals > 1) {
      console.error("Second signal: exiting without waiting for runs to finish.");
      process.exit(1);
    }
    console.log(`${signal}: finishing running runs, then stopping…`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error("shutdown failed", { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  });
}
