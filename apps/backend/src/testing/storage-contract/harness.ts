import { afterEach } from "vitest";
import {
  AgentProfileSchema,
  isSkill,
  SceneSchema,
  SecretRedactor,
  workflowInterface,
  WorkflowSchema,
  type AgentProfile,
  type Scene,
  type Workflow,
  type WorkflowInput,
  type WorkflowSummary,
} from "@weft/types";
import type { Storage } from "../storage.ts";
import type { WorkflowTable } from "../../workflows/workflow-repository.ts";

/** One empty database of the engine under test. */
export interface ContractDatabase {
  /** A storage on this database; a second call opens another one (its own connection or pool), as a second process would. */
  open(redactor?: SecretRedactor): Promise<Storage>;
}

/** What a storage engine gives the contract suite: the same suite runs unchanged on every engine. */
export interface StorageHarness {
  engine: "sqlite" | "postgres";
  /** A new, empty database at the latest schema. */
  freshDatabase(): Promise<ContractDatabase>;
}

/** Storages opened by a test, closed after it. */
export function storageOpener(harness: StorageHarness): {
  /** A storage on a fresh database. */
  fresh(redactor?: SecretRedactor): Promise<Storage>;
  /** A fresh database, to open several storages on. */
  database(): Promise<ContractDatabase>;
} {
  const opened: Storage[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  const database = async (): Promise<ContractDatabase> => {
    const db = await harness.freshDatabase();
    return {
      async open(redactor) {
        const storage = await db.open(redactor);
        opened.push(storage);
        return storage;
      },
    };
  };
  return {
    database,
    async fresh(redactor) {
      return (await database()).open(redactor);
    },
  };
}

export function workflow(input: WorkflowInput): Workflow {
  return WorkflowSchema.parse(input);
}

/** A skill: a workflow input, `extra` plain nodes, and a workflow output. */
export function skill(id: string, name: string, extra = 0): Workflow {
  const nodes: WorkflowInput["nodes"] = [{ id: "in", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } }];
  for (let i = 0; i < extra; i++) nodes.push({ id: `t${i}`, type: "core:text-transform", config: { case: "upper" } });
  nodes.push({ id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } });
  return workflow({ id, name, description: `${name} described`, tags: ["a"], nodes });
}

/** The workflow list's summaries as computed from the whole stored documents, in the list's order: what `summaries()` must answer. */
export async function summariesOfWholeDocuments(repo: WorkflowTable): Promise<WorkflowSummary[]> {
  return (await repo.list()).items.map(({ document: wf, updatedAt }) => ({
    id: wf.id,
    name: wf.name,
    description: wf.description,
    revision: wf.revision,
    tags: wf.tags,
    nodeCount: wf.nodes.length,
    updatedAt,
    isSkill: isSkill(wf),
    interface: workflowInterface(wf),
  }));
}

export function agentProfile(id: string, name: string): AgentProfile {
  return AgentProfileSchema.parse({ id, name, deliberationWorkflowId: "deliberate" });
}

export function scene(id: string, name: string): Scene {
  return SceneSchema.parse({ id, name, agents: [{ instanceId: "a1", profileId: "p1" }] });
}

/** A redactor that knows one secret, to check what runtime records store. */
export function redactorWith(secret: string): SecretRedactor {
  const redactor = new SecretRedactor();
  redactor.set("contract", "contract secret", [secret]);
  return redactor;
}
