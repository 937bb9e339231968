import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { silentLogger, type WorkflowInput } from "../../../packages/types/src/index.ts";
import { createServer, type WeftServer } from "../../../apps/backend/src/server.ts";
import { buildFrontend } from "./build-frontend.ts";

export const CHROMIUM = process.env.WEFT_CHROMIUM ?? "/usr/bin/chromium";
// STACK.md pitfall 4: without the networking flags Chromium floods the closed network.
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface Weft {
  server: WeftServer;
  url: string;
  context: BrowserContext;
  page: Page;
  /** JSON in, JSON out, against the real API. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  createWorkflow(workflow: WorkflowInput): Promise<void>;
  close(): Promise<void>;
}

/** The built editor served by the real backend (temp data folder, free port) and a headless Chromium on it. */
export async function startWeft(options: { viewport?: { width: number; height: number } } = {}): Promise<Weft> {
  await buildFrontend();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-e2e-data-"));
  const examplesDir = mkdtempSync(join(tmpdir(), "weft-e2e-examples-"));
  const profileDir = mkdtempSync(join(tmpdir(), "weft-e2e-profile-"));
  const server = await createServer({ dataDir, examplesDir, port: 0, logger: silentLogger, shutdownGraceMs: 200 });
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1440, height: 900 },
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  const page = context.pages()[0] ?? (await context.newPage());
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    server,
    url: server.url,
    context,
    page,
    api,
    async createWorkflow(workflow) {
      const res = await api("POST", "/api/workflows", { workflow });
      if (res.status !== 201) throw new Error(`could not create ${workflow.id}: ${JSON.stringify(res.body)}`);
    },
    async close() {
      await context.close();
      await server.stop();
      for (const dir of [dataDir, examplesDir, profileDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
