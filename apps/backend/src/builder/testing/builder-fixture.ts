import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import { BuilderApplyResponseSchema, BuilderChangeSetSchema, BuilderObjectTypeSchema, ObjectRevisionSchema, type RevisionBase } from "@weft/types";
import { startTestServer, tempDir, templateWorkflow, type TestServer } from "../../testing/test-server.ts";
import { AuditEventTypeSchema } from "../domain/records.ts";

/** The key of the test LLM profile: it must reach the scripted server and never come back in any answer. */
export const API_KEY = "sk-builder-Zq8Lm3Xp7Wn2Rt5Yv9Kc4Hd6Jf1Gs0TopSecret7e1a";

export interface Answer {
  status: number;
  /** The parsed JSON (or the text, when it is not JSON): read it through the answer's schema. */
  body: unknown;
  text: string;
}

/** GET /api/builder/sessions/:id/audit: the session's events, each one's data left whole. */
export const AuditAnswerSchema = z.object({ events: z.array(z.object({ id: z.number(), type: AuditEventTypeSchema, data: z.record(z.string(), z.unknown()), at: z.number() })) });
/** GET /api/builder/sessions/:id/change-sets: the session's change sets, oldest first. */
export const ChangeSetListSchema = z.object({ changeSets: z.array(BuilderChangeSetSchema) });
/** The data of an `ai.apply.succeeded` event: each object applied, with the stored version it replaced (`before`). */
export const AppliedObjectsSchema = z.object({
  objects: z.array(z.object({ type: BuilderObjectTypeSchema, key: z.string(), from: ObjectRevisionSchema, to: ObjectRevisionSchema, before: z.unknown() })),
});

/** The new revisions of an apply that went through (the test fails on an apply held for confirmation). */
export function newRevisionOf(body: unknown): RevisionBase {
  const answer = BuilderApplyResponseSchema.parse(body);
  if (!answer.applied) throw new Error(`the apply was held for confirmation: ${JSON.stringify(answer.warnings)}`);
  return answer.newRevision;
}

/** A real server with its SQLite file and @project/ folder in temp folders, and a scripted OpenAI-compatible LLM behind a profile with a key. */
export interface BuilderFixture {
  t: TestServer;
  llm: ScriptedLlmServer;
  profileId: string;
  projectDir: string;
  /** Every answer body the server sent in this fixture, as text. */
  answers: string[];
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

export async function startBuilderFixture(): Promise<BuilderFixture> {
  const llm = await startScriptedLlmServer({ model: "builder-test-model" });
  const projectDir = tempDir("weft-builder-project-");
  const t = await startTestServer({ projectDir });
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await t.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }), headers: method === "GET" ? {} : { "content-type": "application/json" } });
    const text = await res.text();
    answers.push(text);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    return { status: res.status, body: parsed, text };
  };
  // No provider timeout within a test: a slow scripted answer is ended by what the test does (a cancel), not by the clock.
  const created = await call("POST", "/api/llm-profiles", { id: "scripted", name: "Scripted", baseUrl: llm.baseUrl, model: "builder-test-model", apiKey: API_KEY, timeoutMs: 600_000, maxRetries: 0 });
  if (created.status !== 201) throw new Error(`could not create the LLM profile: ${created.text}`);
  const stop = async () => {
    await t.stop();
    await llm.stop();
  };
  return { t, llm, profileId: "scripted", projectDir, answers, call, stop };
}

/** A model turn calling tools, by their wire names, with JSON arguments. */
export function toolTurn(...calls: [name: string, args: unknown][]): ScriptedTurn {
  return { kind: "tool_calls", calls: calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })) };
}

export function textTurn(text: string): ScriptedTurn {
  return { kind: "text", chunks: [text] };
}

/** `notes`: topic → fill ("Notes on {{0}}") → out. */
export function notesWorkflow(id = "notes") {
  return templateWorkflow(id, "Notes on {{0}}");
}

/** The fill node of `notes` with another template. */
export function fillNode(template: string) {
  return { id: "fill", type: "core:text-template", position: { x: 0, y: 0 }, config: { template }, inputs: {} };
}

/**
 * Everything the Builder must not change before apply: the stored workflows, agent profiles and
 * scenes (read from the SQLite file over a connection of its own) and every file of @project/.
 */
export function businessSnapshot(dataDir: string, projectDir: string): string {
  const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
  try {
    const tables = Object.fromEntries(
      ["workflows", "agent_profiles", "scenes"].map((table) => [table, db.query(`SELECT id, name, revision, data, created_at, updated_at FROM ${table} ORDER BY id`).all()]),
    );
    return JSON.stringify({ tables, files: filesOf(projectDir) });
  } finally {
    db.close();
  }
}

function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(root, path)] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return out;
}

/** Rows of one of the Builder's tables for a session (read over a separate connection). */
export function builderRows(dataDir: string, table: "builder_working_copy" | "builder_change_sets", sessionId: string): unknown[] {
  const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
  try {
    return db.query(`SELECT * FROM ${table} WHERE session_id = ?`).all(sessionId);
  } finally {
    db.close();
  }
}
