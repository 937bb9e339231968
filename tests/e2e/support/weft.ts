import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { silentLogger, type Workflow, type WorkflowInput } from "../../../packages/types/src/index.ts";
import { WorkflowAnswerSchema } from "../../../apps/backend/src/testing/answers.ts";
import { createServer, type WeftServer } from "../../../apps/backend/src/server.ts";
import { tempDir } from "../../../apps/backend/src/testing/temp-dirs.ts";
import { buildFrontend } from "./build-frontend.ts";
import { useStarted } from "./lifecycle.ts";

export const CHROMIUM = process.env.WEFT_CHROMIUM ?? "/usr/bin/chromium";
// STACK.md pitfall 4: without the networking flags Chromium floods the closed network.
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** What reads an answer: a schema of @weft/types, of the editor's api/ or of the backend's testing/answers.ts (zod's `parse`). */
export interface Parser<T> {
  parse(value: unknown): T;
}

export interface WeftOptions {
  viewport?: { width: number; height: number };
  examplesDir?: string;
  /** Queue mode: runs, agents and scenes go to `weft worker` processes through this Redis. */
  redisUrl?: string;
  /**
   * Open on Home as a new browser does. Off by default: the browser has chosen (Home's "Show Home when Weft
   * opens", kept in its storage) to open on the editor, as the tests of the editor expect.
   */
  home?: boolean;
}

export interface Weft {
  server: WeftServer;
  url: string;
  /** The server's data folder (the tools' `@project/` is beside it: `server.projectDir`). */
  dataDir: string;
  context: BrowserContext;
  page: Page;
  /** JSON in, JSON out, against the real API: the body as parsed JSON (undefined when empty), to read through a schema. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** GET `path` and read the answer through `schema`; an answer that does not fit fails with its status and text. */
  read<T>(path: string, schema: Parser<T>): Promise<T>;
  createWorkflow(workflow: WorkflowInput): Promise<void>;
  /** The workflow as stored now. */
  storedWorkflow(id: string): Promise<Workflow>;
  close(): Promise<void>;
}

/** The built editor served by the real backend (temp data folder, free port) and a headless Chromium on it. */
export async function startWeft(options: WeftOptions = {}): Promise<Weft> {
  await buildFrontend();
  // tempDir: if the browser or the server fails to start, the folders are still removed after the file.
  const dataDir = tempDir("weft-e2e-data-");
  // Without a folder of examples the server starts empty; a given one (e.g. the repository's workflows/) is only read.
  const ownExamples = options.examplesDir === undefined;
  const examplesDir = options.examplesDir ?? tempDir("weft-e2e-examples-");
  const profileDir = tempDir("weft-e2e-profile-");
  const server = await createServer({ dataDir, examplesDir, port: 0, logger: silentLogger, shutdownGraceMs: 200, ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}) });
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1440, height: 900 },
  });
  // A step that cannot happen should fail the test with its own message, well before the test's timeout; a step that is
  // only slow (a loaded machine: a page load, a click waiting for the layout) still gets through.
  context.setDefaultTimeout(15_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await signInBrowser(context, server);
  if (!options.home) {
    await context.addInitScript(() => {
      if (localStorage.getItem("weft.home.atStart") === null) localStorage.setItem("weft.home.atStart", "false");
    });
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const send = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${server.accessToken}` };
    if (method !== "GET") headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    return { status: res.status, body: parsed, text };
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const { status, body: answer } = await send(method, path, body);
    return { status, body: answer };
  };
  const read = async <T>(path: string, schema: Parser<T>): Promise<T> => {
    const { status, body, text } = await send("GET", path);
    try {
      return schema.parse(body);
    } catch (error) {
      throw new Error(`GET ${path} answered ${status} ${text.slice(0, 400)}, which does not fit: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  return {
    server,
    url: server.url,
    dataDir,
    context,
    page,
    api,
    read,
    async createWorkflow(workflow) {
      const res = await api("POST", "/api/workflows", { workflow });
      if (res.status !== 201) throw new Error(`could not create ${workflow.id}: ${JSON.stringify(res.body)}`);
    },
    async storedWorkflow(id) {
      return (await read(`/api/workflows/${encodeURIComponent(id)}`, WorkflowAnswerSchema)).workflow;
    },
    async close() {
      await context.close();
      await server.stop();
      for (const dir of ownExamples ? [dataDir, server.projectDir, examplesDir, profileDir] : [dataDir, server.projectDir, profileDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs the browser in as a user does (the token traded for the session cookie), without loading the editor first. */
export async function signInBrowser(context: BrowserContext, server: Pick<WeftServer, "url" | "accessToken">): Promise<void> {
  const res = await fetch(`${server.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: server.accessToken }) });
  const cookie = /^weft_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!res.ok || !cookie) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  await context.addCookies([{ name: "weft_session", value: cookie, url: server.url, httpOnly: true, sameSite: "Strict" }]);
}

/**
 * Weft for the tests of a file: started before them (then `setup`, in the same hook), closed after them, and a
 * screenshot of the page after a failed test. The handle reads the started Weft, so use it in tests and hooks.
 */
export function useWeft(options: WeftOptions = {}, setup?: (weft: Weft) => Promise<void>): Weft {
  const weft = useStarted(
    "Weft",
    () => startWeft(options),
    (started) => started.close(),
    setup,
  );
  screenshotFailures(weft.current);
  return weft.handle;
}

/** After a failed test, a screenshot of the page goes to <tmp>/weft-e2e-failures/ (its path is printed). */
function screenshotFailures(current: () => Weft | undefined): void {
  afterEach(async (context) => {
    const page = current()?.page;
    if (context.task.result?.state !== "fail" || !page) return;
    const dir = join(tmpdir(), "weft-e2e-failures");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${context.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80)}.png`);
    await page.screenshot({ path }).catch(() => undefined);
    console.error(`screenshot of the failure: ${path}`);
  });
}
