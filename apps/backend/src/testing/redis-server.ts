import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { freePort } from "./free-port.ts";

/** A redis-server the tests started, on 127.0.0.1, nothing persisted. */
export interface TestRedis {
  /** `redis://127.0.0.1:PORT`; with `acl`, `redis://weft:PASSWORD@…`; with `tls`, `rediss://…`. */
  url: string;
  /** With `tls`: the CA that signed the server's certificate (give it to clients as NODE_EXTRA_CA_CERTS). */
  caFile?: string;
  /** Kills the server and deletes its folder. */
  stop(): Promise<void>;
}

/** redis-server is missing (scripts/ensure-redis.sh installs it), or it would not start. */
export class TestRedisError extends Error {
  readonly code = "TEST_REDIS_UNAVAILABLE";
}

/** What `startRedis` locks the server with, as a deployment should: an ACL user with a password (the default user off), TLS only. */
export interface TestRedisOptions {
  acl?: boolean;
  tls?: boolean;
}

/** The ACL user the tests' locked server knows. */
export const TEST_REDIS_USER = "weft";

/** True once the server answers PING (with PONG, or with NOAUTH when it asks for a password). */
async function answersPing(port: number, ca?: string): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket: Socket = ca === undefined ? connect(port, "127.0.0.1") : connectTls({ port, host: "127.0.0.1", ca, servername: "localhost" });
    let text = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once(ca === undefined ? "connect" : "secureConnect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (text.includes("\r\n")) done(text.startsWith("+PONG") || text.startsWith("-NOAUTH"));
    });
  });
}

const running = new Set<{ proc: ReturnType<typeof Bun.spawn>; dir: string }>();
let exitHookInstalled = false;

/** A test process that dies without `stop()` still takes its servers down, so none outlive the run. */
function stopOnExit(entry: { proc: ReturnType<typeof Bun.spawn>; dir: string }): void {
  running.add(entry);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const { proc, dir } of running) {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A CA and a certificate for 127.0.0.1 signed by it, made with openssl in `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const files = { ca: join(dir, "ca.crt"), cert: join(dir, "server.crt"), key: join(dir, "server.key") };
  const run = (args: string[]) => {
    const done = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe" });
    if (done.exitCode !== 0) throw new TestRedisError(`openssl ${args[0]} failed: ${done.stderr.toString()}`);
  };
  writeFileSync(join(dir, "san.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", files.ca, "-days", "2", "-subj", "/CN=weft-test-ca"]);
  run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", files.key, "-out", "server.csr", "-subj", "/CN=localhost"]);
  run(["x509", "-req", "-in", "server.csr", "-CA", files.ca, "-CAkey", "ca.key", "-CAcreateserial", "-out", files.cert, "-days", "2", "-extfile", "san.cnf"]);
  return files;
}

/** redis-server's arguments for a port: plain, or TLS only (`--port 0`), with the ACL user and the default user off. */
function serverArgs(port: number, dir: string, options: TestRedisOptions, password: string, certs?: { ca: string; cert: string; key: string }): string[] {
  const args = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning"];
  if (certs) args.push("--port", "0", "--tls-port", String(port), "--tls-cert-file", certs.cert, "--tls-key-file", certs.key, "--tls-ca-cert-file", certs.ca, "--tls-auth-clients", "no");
  else args.push("--port", String(port));
  if (options.acl) {
    // ACL rules cannot be given as one argument: a config file holds them.
    const aclFile = join(dir, "users.acl");
    writeFileSync(aclFile, `user default off\nuser ${TEST_REDIS_USER} on >${password} ~* &* +@all\n`);
    args.push("--aclfile", aclFile);
  }
  return args;
}

/**
 * Starts a throwaway redis-server on a free port of 127.0.0.1 (well under a second), as a child of
 * this process, its working folder a temp dir and persistence off (`--save ''`, no AOF). `acl` and
 * `tls` lock it as a deployment should (docs/deploy.md): a client needs the user, the password and the CA.
 */
export async function startRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  if (!Bun.which("redis-server")) throw new TestRedisError("redis-server is not installed: run `source scripts/ensure-redis.sh` (installs Debian's redis-server).");
  const dir = mkdtempSync(join(tmpdir(), "weft-redis-"));
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const ca = certs ? readFileSync(certs.ca, "utf8") : undefined;
  const password = `pw-${crypto.randomUUID()}`;
  let lastOutput = "";
  // A free port can be taken between asking and binding; another one is tried then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = Bun.spawn(["redis-server", ...serverArgs(port, dir, options, password, certs)], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const deadline = Date.now() + 10_000;
    while (proc.exitCode === null && Date.now() < deadline) {
      if (await answersPing(port, ca)) {
        const entry = { proc, dir };
        stopOnExit(entry);
        return {
          url: `${certs ? "rediss" : "redis"}://${options.acl ? `${TEST_REDIS_USER}:${password}@` : ""}127.0.0.1:${port}`,
          ...(certs ? { caFile: certs.ca } : {}),
          async stop() {
            running.delete(entry);
            proc.kill("SIGKILL");
            await proc.exited;
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await Bun.sleep(20);
    }
    proc.kill("SIGKILL");
    await proc.exited;
    lastOutput = `${await new Response(proc.stdout as ReadableStream<Uint8Array>).text()}${await new Response(proc.stderr as ReadableStream<Uint8Array>).text()}`.trim();
  }
  rmSync(dir, { recursive: true, force: true });
  throw new TestRedisError(`redis-server did not start: ${lastOutput || "no output"}`);
}
