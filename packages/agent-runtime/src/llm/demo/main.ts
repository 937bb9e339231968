/**
 * Runs the demo LLM on its own: `bun packages/agent-runtime/src/llm/demo/main.ts --port 4010 [--host 127.0.0.1]`.
 * Prints the base URL to use in an LLM profile, then serves until interrupted.
 */
import { DEMO_MODEL, startDemoLlm } from "./demo-llm-server.ts";
import { messageOf } from "@weft/types";

const USAGE = "usage: bun packages/agent-runtime/src/llm/demo/main.ts [--port 4010] [--host 127.0.0.1]";

function parseArgs(argv: readonly string[]): { port: number; hostname: string } | string {
  let port = 4010;
  let hostname = "127.0.0.1";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === "--help" || arg === "-h") return USAGE;
    if (arg === "--port") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) return `--port needs a number from 0 to 65535, got "${value ?? ""}".\n${USAGE}`;
      port = n;
      i++;
    } else if (arg === "--host") {
      if (!value) return `--host needs a host name or address.\n${USAGE}`;
      hostname = value;
      i++;
    } else {
      return `Unknown argument "${arg}".\n${USAGE}`;
    }
  }
  return { port, hostname };
}

const args = parseArgs(process.argv.slice(2));
if (args === USAGE) {
  console.log(USAGE);
  process.exit(0);
}
if (typeof args === "string") {
  console.error(args);
  process.exit(2);
}
let demo: ReturnType<typeof startDemoLlm>;
try {
  demo = startDemoLlm(args);
} catch (error) {
  console.error(`Cannot listen on ${args.hostname}:${args.port}: ${messageOf(error)}. Pick another port with --port.`);
  process.exit(1);
}
console.log(`Weft demo LLM listening: base URL ${demo.baseUrl}, model ${DEMO_MODEL}`);
const shutdown = () => void demo.stop().then(() => process.exit(0));
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
