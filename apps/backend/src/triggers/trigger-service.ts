import { LRUCache } from "lru-cache";
import { SCHEDULE_TRIGGER_TYPE, WEBHOOK_TRIGGER_TYPE, WebhookConfigSchema, type Logger, type RunTrigger, type ScheduleConfig, type TriggerKind, type WebhookConfig, type Workflow } from "@weft/types";
import { checkSchedule, type Schedule } from "@weft/nodes";
import { notFound, ServiceError } from "../service-error.ts";
import type { PreparedRun, RunService, StartRunRequest } from "../runs/run-service.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { WorkflowTable } from "../workflows/workflow-repository.ts";
import type { RunRepository } from "../events/run-repository.ts";
import type { StoredDocument } from "../storage/document-table.ts";
import type { Activation, ReplayRow, TriggerState, TriggerTable } from "./trigger-repository.ts";
import { storedRevisionKey } from "./trigger-repository.ts";
import { newHookSecret } from "./webhook-proof.ts";
import { HookAdmissions } from "./hook-admissions.ts";
import type { StorageEngine } from "../storage/storage.ts";

/** One trigger node of a workflow, its config checked. */
export type TriggerNode = WebhookNode | ScheduleNode;
export type WebhookNode = { kind: "webhook"; nodeId: string; config: WebhookConfig };
export type ScheduleNode = { kind: "schedule"; nodeId: string; config: ScheduleConfig; schedule: Schedule };

/** How many coming ticks the Triggers view shows per schedule. */
export const UPCOMING_TICKS = 5;

/** The config a schedule's stored next tick was computed for: another one (a save) re-arms it. */
export const scheduleKey = (config: ScheduleConfig): string => JSON.stringify([config.cron, config.timezone, config.catchUp, config.maxCatchUp]);

/** A trigger as the Triggers view lists it. */
export interface TriggerView {
  workflowId: string;
  workflowName: string;
  nodeId: string;
  kind: TriggerKind;
  active: boolean;
  /** A webhook's path under `/hooks/<workflowId>/`. */
  path?: string;
  method?: string;
  auth?: WebhookConfig["auth"];
  response?: WebhookConfig["response"];
  /** Whether a secret was made (at activation or rotation); it is never shown again. */
  hasSecret: boolean;
  /** A schedule's cron expression, time zone and catch-up policy. */
  cron?: string;
  timezone?: string;
  catchUp?: ScheduleConfig["catchUp"];
  /** A schedule's next ticks from now (epoch ms), whether or not it is on. */
  nextFires?: number[];
  lastFiredAt?: number;
  lastRunId?: string;
  /** The last run's status now (the "last result"). */
  lastStatus?: string;
  /** Problems with the node's config: it cannot fire until they are fixed. */
  problem?: string;
}

/** A hook's secret, in the one answer that shows it (activation or rotation). */
export interface ShownSecret {
  nodeId: string;
  secret: string;
}

export interface TriggerServiceDeps {
  workflows: WorkflowTable;
  runsRepo: RunRepository;
  table: TriggerTable;
  runs: RunService;
  box: SecretBox;
  log: Logger;
  /** The engine's transactions: a hook request's signature, run and fire are stored in one (`HookAdmissions`). */
  transaction: StorageEngine["transaction"];
}

/** The sealed secret's context: a sealed value copied to another hook's row does not open. */
const secretContext = (workflowId: string, nodeId: string) => `webhook:${workflowId}:${nodeId}`;

/** Workflows whose checked trigger nodes are kept (each is one workflow revision's; the least recently used go first). */
const CACHED_HOOK_WORKFLOWS = 256;

/** A secret made for this workflow, not for an earlier one deleted under the same id (whose senders still hold it). */
function current(state: TriggerState | undefined, workflowCreatedAt: number): boolean {
  return state?.sealedSecret !== undefined && state.createdAt >= workflowCreatedAt;
}

/** The trigger nodes of a workflow, each with its config checked (a wrong one is reported, not thrown). */
export function triggerNodesOf(workflow: Workflow): { nodes: TriggerNode[]; problems: Map<string, string> } {
  const nodes: TriggerNode[] = [];
  const problems = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const node of workflow.nodes) {
    if (node.type === SCHEDULE_TRIGGER_TYPE) {
      const checked = checkSchedule(node.config);
      if (checked.ok) nodes.push({ kind: "schedule", nodeId: node.id, config: checked.schedule.config, schedule: checked.schedule });
      else problems.set(node.id, `config.${checked.problem.message}`);
      continue;
    }
    if (node.type !== WEBHOOK_TRIGGER_TYPE) continue;
    const parsed = WebhookConfigSchema.safeParse(node.config ?? {});
    if (!parsed.success) {
      problems.set(node.id, `config.${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      continue;
    }
    const other = paths.get(parsed.data.path);
    if (other !== undefined) {
      problems.set(node.id, `its path "${parsed.data.path}" is also node "${other}"'s; give each webhook of a workflow its own path`);
      continue;
    }
    paths.set(parsed.data.path, node.id);
    nodes.push({ kind: "webhook", nodeId: node.id, config: parsed.data });
  }
  return { nodes, problems };
}

/**
 * Switches workflows active, keeps their hooks' secrets (sealed, shown once) and starts runs for the triggers.
 * A run started by a trigger acts for the editor who switched its workflow on (what credentials it may use follows
 * their role now), and records what started it.
 */
export class TriggerService {
  /**
   * Per workflow: one stored revision of it as read, and its trigger nodes as checked (a revision's content never
   * changes). A hook request serves from it while the stored revision it reads with the activation is this one.
   */
  private readonly kept = new LRUCache<string, { revision: string; stored: StoredDocument<Workflow>; nodes: TriggerNode[] }>({ max: CACHED_HOOK_WORKFLOWS });
  /** Per hook: its secret as opened from one sealed value (a rotation stores a new sealed value, so a new entry). */
  private readonly secrets = new LRUCache<string, { sealed: string; secret: string }>({ max: CACHED_HOOK_WORKFLOWS });
  private readonly admissions: HookAdmissions<PreparedRun>;

  constructor(private readonly deps: TriggerServiceDeps) {
    this.admissions = new HookAdmissions({
      transaction: deps.transaction,
      acceptReplays: (rows) => deps.table.acceptReplays(rows),
      storeRun: (run) => deps.runs.store(run),
      storeFires: (rows) => deps.table.storeFires(rows),
    });
  }

  private async workflow(workflowId: string): Promise<{ document: Workflow; createdAt: number }> {
    const stored = await this.deps.workflows.get(workflowId);
    if (!stored) throw notFound("workflow", workflowId, "GET /api/workflows lists them.");
    return stored;
  }

  /**
   * Switches a workflow on or off. On: it must have a trigger node and every one must be valid; a webhook without a
   * secret gets one, returned here once. Off: its hooks answer 404 (their secrets are kept for when it is on again).
   */
  async setActive(workflowId: string, active: boolean, by: string): Promise<{ workflowId: string; active: boolean; secrets: ShownSecret[] }> {
    const { document: workflow, createdAt } = await this.workflow(workflowId);
    if (!active) {
      await this.deps.table.deactivate(workflowId);
      return { workflowId, active: false, secrets: [] };
    }
    const { nodes, problems } = triggerNodesOf(workflow);
    if (problems.size > 0) {
      const [nodeId, problem] = [...problems][0];
      throw new ServiceError("VALIDATION_FAILED", `Workflow "${workflowId}" cannot be switched on: trigger node "${nodeId}": ${problem}.`, {
        issues: [...problems].map(([id, message]) => ({ path: ["nodes", id, "config"], message, code: "custom" })),
      });
    }
    if (nodes.length === 0) {
      throw new ServiceError(
        "VALIDATION_FAILED",
        `Workflow "${workflowId}" has no trigger node, so there is nothing to switch on; add a "${WEBHOOK_TRIGGER_TYPE}" or "${SCHEDULE_TRIGGER_TYPE}" node and save first.`,
        {
          issues: [{ path: ["nodes"], message: "no trigger node", code: "custom" }],
        },
      );
    }
    // A hook or schedule of a workflow that cannot run would fail every request it takes.
    const issues = this.deps.runs.problemsOf(workflow);
    if (issues.length > 0) {
      throw new ServiceError(
        "VALIDATION_FAILED",
        `Workflow "${workflowId}" cannot be switched on: it cannot run (${issues.length} problem(s), first: ${issues[0].message}). Fix them (POST /api/workflows/validate lists them all), save, and switch it on again.`,
        { issues },
      );
    }
    const secrets: ShownSecret[] = [];
    const now = Date.now();
    for (const node of nodes) {
      switch (node.kind) {
        case "webhook": {
          const state = await this.deps.table.state(workflowId, node.nodeId);
          if (!current(state, createdAt)) secrets.push(await this.newSecret(workflowId, node.nodeId));
          break;
        }
        case "schedule":
          // From now on: the ticks of the time it was off are not caught up.
          await this.deps.table.armSchedule(workflowId, node.nodeId, scheduleKey(node.config), node.schedule.next(now), now);
          break;
      }
    }
    await this.deps.table.activate({ workflowId, activatedBy: by, activatedAt: Date.now() });
    return { workflowId, active: true, secrets };
  }

  /** A new secret for one webhook node; the old one stops working at once. Shown in this answer only. */
  async rotate(workflowId: string, nodeId: string): Promise<ShownSecret> {
    const { document: workflow } = await this.workflow(workflowId);
    const node = workflow.nodes.find((n) => n.id === nodeId);
    if (!node || node.type !== WEBHOOK_TRIGGER_TYPE) {
      throw new ServiceError("NOT_FOUND", `Workflow "${workflowId}" has no webhook node "${nodeId}" (save the workflow after adding it).`, { workflowId, nodeId });
    }
    return this.newSecret(workflowId, nodeId);
  }

  private async newSecret(workflowId: string, nodeId: string): Promise<ShownSecret> {
    const secret = newHookSecret();
    await this.deps.table.putSecret(workflowId, nodeId, "webhook", this.deps.box.encrypt(secret, secretContext(workflowId, nodeId)), Date.now());
    return { nodeId, secret };
  }

  /** Every trigger node of every workflow, on or off, with its last fire and that run's status. */
  async list(): Promise<TriggerView[]> {
    const [listing, activations, states] = await Promise.all([this.deps.workflows.list(), this.deps.table.activations(), this.deps.table.states()]);
    const activatedAt = new Map(activations.map((a) => [a.workflowId, a.activatedAt]));
    const stateOf = new Map(states.map((s) => [`${s.workflowId}\n${s.nodeId}`, s]));
    const views: TriggerView[] = [];
    for (const { document: workflow, createdAt } of listing.items) {
      const { nodes, problems } = triggerNodesOf(workflow);
      for (const node of workflow.nodes) {
        const kind = node.type === WEBHOOK_TRIGGER_TYPE ? "webhook" : node.type === SCHEDULE_TRIGGER_TYPE ? "schedule" : undefined;
        if (kind === undefined) continue;
        const state = stateOf.get(`${workflow.id}\n${node.id}`);
        const checked = nodes.find((n) => n.nodeId === node.id);
        const on = activatedAt.get(workflow.id);
        const view: TriggerView = {
          workflowId: workflow.id,
          workflowName: workflow.name,
          nodeId: node.id,
          kind,
          active: on !== undefined && on >= createdAt,
          hasSecret: kind === "webhook" && current(state, createdAt),
        };
        if (checked) Object.assign(view, describeNode(checked));
        const problem = problems.get(node.id);
        if (problem !== undefined) view.problem = problem;
        if (state?.lastFiredAt !== undefined) view.lastFiredAt = state.lastFiredAt;
        if (state?.lastRunId !== undefined) {
          view.lastRunId = state.lastRunId;
          const run = await this.deps.runsRepo.get(state.lastRunId);
          if (run) view.lastStatus = run.status;
        }
        views.push(view);
      }
    }
    return views;
  }

  /**
   * The active hook at `/hooks/<workflowId>/<path>`: the workflow as stored, its node and config, who its runs act
   * for, and its secret. Undefined when there is none (or the workflow is off): the caller answers 404 alike. The
   * activation, the node's state and the workflow's stored revision are read on every request (a switch-off, a
   * rotation or a save by any process is seen on the next request); the workflow itself only when that revision is
   * not the one kept (parsing it was ~4% of a hook request's CPU in bench:webhook, its read ~3%).
   */
  async activeHook(workflowId: string, path: string): Promise<ActiveHook | undefined> {
    const kept = this.kept.get(workflowId);
    const keptNode = kept === undefined ? undefined : webhookAt(kept.nodes, path);
    if (kept !== undefined && keptNode !== undefined) {
      const found = await this.deps.table.activeState(workflowId, keptNode.nodeId);
      if (!found) return undefined;
      if (found.storedRevision === kept.revision) return this.hookOf(workflowId, kept.stored, keptNode, found);
    }
    const stored = await this.deps.workflows.get(workflowId);
    if (!stored) return undefined;
    const node = webhookAt(this.triggerNodes(workflowId, stored), path);
    if (!node) return undefined;
    const found = await this.deps.table.activeState(workflowId, node.nodeId);
    return found ? this.hookOf(workflowId, stored, node, found) : undefined;
  }

  /** The hook when its workflow's activation and the node's secret are this workflow's (not a deleted one's of the same id). */
  private hookOf(workflowId: string, stored: StoredDocument<Workflow>, node: WebhookNode, found: { activation: Activation; state: TriggerState | undefined }): ActiveHook | undefined {
    const { activation, state } = found;
    // A workflow deleted and made again under the same id is a new one: off, whatever the old one was.
    if (activation.activatedAt < stored.createdAt) return undefined;
    if (!current(state, stored.createdAt) || state?.sealedSecret === undefined) return undefined;
    const secret = this.openSecret(workflowId, node.nodeId, state.sealedSecret);
    return { workflow: stored.document, stored, node, actor: activation.activatedBy, secret };
  }

  /** The workflow's trigger nodes, checked once per stored revision (every hook request would parse them again). */
  triggerNodes(workflowId: string, stored: StoredDocument<Workflow>): TriggerNode[] {
    const revision = storedRevisionKey(stored.createdAt, stored.updatedAt, stored.document.revision);
    const cached = this.kept.get(workflowId);
    const nodes = cached?.revision === revision ? cached.nodes : triggerNodesOf(stored.document).nodes;
    this.kept.set(workflowId, { revision, stored, nodes });
    return nodes;
  }

  /** The hook's secret, opened once per sealed value (decryption per request costs more than the rest of the check). */
  private openSecret(workflowId: string, nodeId: string, sealed: string): string {
    const key = `${workflowId}\n${nodeId}`;
    const cached = this.secrets.get(key);
    if (cached?.sealed === sealed) return cached.secret;
    const secret = this.deps.box.decrypt(sealed, secretContext(workflowId, nodeId));
    this.secrets.set(key, { sealed, secret });
    return secret;
  }

  /**
   * A hook request's run of `workflow` with the trigger node's outputs pinned (the node does not run; its outputs are
   * the request), checked and built, then stored with the request's signature (`replay`) and the hook's last fire in
   * one commit shared with the requests that arrive together (`HookAdmissions`). Undefined, and nothing stored, when
   * the signature was accepted before. Not handed over yet: `startAdmitted`.
   */
  async admit(hook: FiringHook, outputs: Record<string, unknown>, replay: ReplayRow | undefined): Promise<PreparedRun | undefined> {
    const at = Date.now();
    const run = await this.deps.runs.prepare(this.startRequest(hook, outputs, at));
    const fire = { workflowId: hook.workflow.id, nodeId: hook.node.nodeId, at, runId: run.record.id };
    return (await this.admissions.admit({ run, fire, ...(replay ? { replay } : {}) })) ? run : undefined;
  }

  /** Hands an admitted run over (`RunService.handOver`: when it cannot be, the run ends and SERVICE_UNAVAILABLE is thrown). */
  async startAdmitted(run: PreparedRun): Promise<void> {
    await this.deps.runs.handOver(run);
  }

  /**
   * A schedule tick's run, checked and built but not stored: the scheduler stores it in the transaction that claims
   * the tick (`store`) and then hands it over (`dispatch`).
   */
  prepareTick(hook: FiringHook, outputs: Record<string, unknown>, scheduledFor: number): Promise<PreparedRun> {
    return this.deps.runs.prepare(this.startRequest(hook, outputs, Date.now(), scheduledFor));
  }

  store(run: PreparedRun): Promise<void> {
    return this.deps.runs.store(run);
  }

  /** Hands a stored tick's run over; throws when the queue is unreachable (the run stays queued for the recovery). */
  async dispatch(hook: FiringHook, run: PreparedRun): Promise<void> {
    await this.deps.runs.dispatchStored(run);
    await this.recordFire(hook, run.record.trigger?.at ?? run.record.createdAt, run.record.id);
  }

  /** A claimed tick's run that a dead process stored but never handed over: handed over now (false: it was). */
  redispatch(runId: string): Promise<boolean> {
    return this.deps.runs.redispatch(runId);
  }

  /** The stored workflow runs (its check and version kept per revision), with the request pinned on its copy. */
  private startRequest(hook: FiringHook, outputs: Record<string, unknown>, at: number, scheduledFor?: number): StartRunRequest {
    const trigger = runTrigger(hook.node, at, scheduledFor);
    return { workflowId: hook.workflow.id, inputs: {}, createdBy: hook.actor, trigger, pins: { nodeId: hook.node.nodeId, outputs }, stored: hook.stored };
  }

  private async recordFire(hook: FiringHook, at: number, runId: string): Promise<void> {
    await this.deps.table
      .recordFire(hook.workflow.id, hook.node.nodeId, at, runId)
      .catch((error: unknown) => this.deps.log.warn("a trigger's last fire was not recorded", { runId, error: String(error) }));
  }
}

/** The webhook node at `path`, if any. */
const webhookAt = (nodes: readonly TriggerNode[], path: string): WebhookNode | undefined => nodes.find((n): n is WebhookNode => n.kind === "webhook" && n.config.path === path);

/** An active hook: its workflow as stored, its node, who its runs act for, and its secret. */
export interface ActiveHook {
  workflow: Workflow;
  stored: StoredDocument<Workflow>;
  node: WebhookNode;
  actor: string;
  secret: string;
}

/** A trigger node of a stored workflow, with who its runs act for. */
export interface FiringHook {
  workflow: Workflow;
  stored: StoredDocument<Workflow>;
  node: TriggerNode;
  actor: string;
}

/** What a run records of the trigger that started it. */
function runTrigger(node: TriggerNode, at: number, scheduledFor: number | undefined): RunTrigger {
  switch (node.kind) {
    case "webhook":
      return { kind: "webhook", nodeId: node.nodeId, path: node.config.path, at };
    case "schedule":
      return { kind: "schedule", nodeId: node.nodeId, scheduledFor: scheduledFor ?? at, at };
  }
}

/** The Triggers view's words for a checked node: a hook's URL and verification, a schedule's cron and coming ticks. */
function describeNode(node: TriggerNode): Partial<TriggerView> {
  switch (node.kind) {
    case "webhook":
      return { path: node.config.path, method: node.config.method, auth: node.config.auth, response: node.config.response };
    case "schedule":
      return { cron: node.config.cron, timezone: node.config.timezone, catchUp: node.config.catchUp, nextFires: node.schedule.upcoming(UPCOMING_TICKS, Date.now()) };
  }
}
