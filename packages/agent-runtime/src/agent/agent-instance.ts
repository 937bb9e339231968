import {
  AgentProfileSchema,
  PermissionAnswerSchema,
  silentLogger,
  type AgentProfile,
  type AgentProfileInput,
  type AgentSessionState,
  type AgentStateStore,
  type AgentStatus,
  type AgentStepTrace,
  type ApprovalOutcome,
  type ApprovalRequest,
  type ContextBudgetInput,
  type ConversationMessage,
  type ConversationStore,
  type LlmService,
  type Logger,
  type NodeCatalog,
  type NodeServices,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
  type RunEventSink,
  type ToolHostService,
  type WorkflowSource,
  messageOf,
} from "@weft/types";
import type { Manifest, ManifestEntry } from "../action/index.ts";
import { userMessage, type ToolOutputStore } from "../conversation/index.ts";
import type { ExecutionEngine } from "../engine/index.ts";
import { withLlmCaller } from "../llm/llm-caller.ts";
import { PrivateState } from "../scene/index.ts";
import { ToolHost, withCallContext } from "../toolhost/index.ts";
import { ActionExecutor } from "./action-executor.ts";
import { AgentEventStream } from "./agent-events.ts";
import { permittedManifest, resolveAgentEntries } from "./agent-manifest.ts";
import { runAgentStep } from "./agent-step.ts";
import { approvalObservation, ASK_APPROVAL_ENTRY } from "./ask-approval.ts";
import { userAnswerObservation } from "./ask-user.ts";
import { Deliberation } from "./deliberation.ts";
import { agentError, fail, ok, type AgentError, type AgentResult } from "./errors.ts";
import { LoopMemory } from "./loop-memory.ts";
import type { MistakeLimits } from "./mistake-tracker.ts";
import { PendingPermissions, type PermissionBroker } from "./permission-broker.ts";
import type { AgentProtocolAdapter } from "./protocol.ts";
import { nativeProtocol } from "./protocol-native.ts";
import { xmlProtocol } from "./protocol-xml.ts";
import type { PendingQuestion } from "./step-actions.ts";
import type { ActionJournal, PermissionRecord, StepEnvironment } from "./step-environment.ts";

export interface AgentInstanceOptions {
  profile: AgentProfileInput;
  engine: ExecutionEngine;
  /** Node types the profile's tools come from (usually the engine's catalog). */
  catalog: NodeCatalog;
  /** The deliberation workflow and the skills. */
  workflows: WorkflowSource;
  conversations: ConversationStore;
  /** Continue this conversation (created when it does not exist); default a new one. */
  conversationId?: string;
  /** The agent id in events, traces and permission rules (a scene's instance id); default the profile id. */
  instanceId?: string;
  /** The LLM for the deliberation (bound to the profile's `llmProfileId`); default the engine's. */
  llm?: LlmService;
  /** For the file and shell tools; bound to this agent and conversation on every call. */
  toolHost?: ToolHostService;
  /**
   * The tool host's rules, to leave denied tools out of the manifest (default: a `ToolHost`'s own
   * policy, read again at the start of every loop, so changed settings apply from the next message).
   */
  permissions?: PermissionPolicy;
  /** The tool host's gate: questions of this conversation come here and wait for `answerPermission`. */
  permissionBroker?: PermissionBroker;
  /**
   * Whether this host can take an `ask_approval` request (default false): only one that stores it where someone can
   * decide it (the backend's approvals inbox) and continues the loop with `answerApproval` once decided. The tool is
   * offered to profiles that enable it (`askApproval`); where the host cannot take it, a call gets an error observation
   * saying so (the agent goes on without waiting).
   */
  approvals?: boolean;
  /**
   * Stores an `ask_approval` request where it will be decided, before the session says `waiting_approval` (so a
   * stored waiting session always has its request stored); a failure ends the loop `failed` instead of waiting.
   */
  onApprovalAsked?: (ask: { step: number; request: ApprovalRequest }) => Promise<void>;
  /** Scene services (world, events, private state); without a private state the agent keeps its own. */
  services?: NodeServices;
  stateStore?: AgentStateStore;
  /** Keeps results too large for an Observation (e.g. `FileToolOutputStore` on the @state/ folder). */
  outputStore?: ToolOutputStore;
  systemPrompt?: string;
  budget?: ContextBudgetInput;
  mistakes?: MistakeLimits;
  observationChars?: number;
  /** `agent.*` events, on the conversation's stream. */
  onEvent?: RunEventSink;
  /** Events of the deliberation and action runs, each on its run's stream. */
  onRunEvent?: RunEventSink;
  logger?: Logger;
}

export interface AgentRunOptions {
  signal?: AbortSignal;
  /** Services for this loop only (a scene's, per trigger), over the instance's. */
  services?: NodeServices;
  /** Wraps the loop's LLM for this loop only (a scene records each answer, or serves recorded ones after a crash). */
  llm?: (llm: LlmService) => LlmService;
  /** Wraps the conversation store for this loop only (a scene commits its effects before each step is recorded). */
  conversations?: (store: ConversationStore) => ConversationStore;
  /** Wraps the session store for this loop only (a scene saves the counters with its commit). */
  sessions?: (store: AgentStateStore) => AgentStateStore;
  /** Records this loop's tool calls, and gives back those already run before a crash (a scene's deliberation). */
  actions?: ActionJournal;
  /** The id of the message `sendMessage` appends (a scene names its trigger, to find it again after a crash). */
  messageId?: string;
  /** The user this loop acts for (who sent the message): named on its tool calls, so the audit log says who they were for. */
  userId?: string;
}

/** How a loop ended. */
export interface AgentRunResult {
  conversationId: string;
  status: AgentStatus;
  reason?: string;
  /** The final answer (`completed`). */
  text?: string;
  /** What the agent asks the user (`waiting_user`); answer it with `sendMessage`. */
  question?: string;
  steps: AgentStepTrace[];
  /** Why the loop failed (`failed`). */
  error?: AgentError;
}

const TRANSIENT: ReadonlySet<AgentStatus> = new Set(["running", "waiting_permission"]);

/**
 * A profile alive in a conversation (seed 004 §3.3): its private state, its conversation log and
 * the deliberation loop — build context, run the deliberation workflow, parse, validate, execute,
 * record, repeat — until an answer without an action, a question for the user, `maxSteps`,
 * cancellation or repeated mistakes. Permission questions of its tool calls pause the loop
 * (`waiting_permission`) until `answerPermission`.
 */
export class AgentInstance {
  readonly agentId: string;
  private currentStatus: AgentStatus;
  private reason: string | undefined;
  private steps: number;
  private question: (PendingQuestion & { step: number }) | undefined;
  private controller: AbortController | undefined;
  private recording: PermissionRecord[] | undefined;
  private readonly permissionsPending: PendingPermissions;
  private readonly detach: (() => void) | undefined;
  private readonly executor: ActionExecutor;
  private readonly protocol: AgentProtocolAdapter;
  private readonly logger: Logger;
  /** The manifest for the policy it was made under; made again when the policy changes. */
  private permitted: { policy: PermissionPolicy | undefined; manifest: Manifest };

  private constructor(
    readonly profile: AgentProfile,
    private readonly entries: readonly ManifestEntry[],
    readonly conversationId: string,
    private readonly deliberation: Deliberation,
    private readonly ownPrivateState: PrivateState,
    private readonly events: AgentEventStream,
    private readonly options: AgentInstanceOptions,
    saved: AgentSessionState | undefined,
    stepsInLog: number,
  ) {
    this.agentId = options.instanceId ?? profile.id;
    const policy = policyOf(options);
    this.permitted = { policy, manifest: permittedManifest(entries, profile, policy, this.agentId) };
    this.currentStatus = saved && !TRANSIENT.has(saved.status) ? saved.status : "idle";
    this.reason = saved?.reason;
    this.steps = saved?.steps ?? stepsInLog;
    this.question = saved?.pendingQuestion;
    this.logger = options.logger ?? silentLogger;
    this.executor = new ActionExecutor({
      engine: options.engine,
      catalog: options.catalog,
      workflows: options.workflows,
      ...(options.outputStore ? { outputStore: options.outputStore } : {}),
      ...(options.observationChars ? { observationChars: options.observationChars } : {}),
    });
    this.protocol = profile.protocol === "openai-tools" ? nativeProtocol : xmlProtocol;
    this.permissionsPending = new PendingPermissions({ onRequested: (r) => this.onPermissionRequested(r), onAnswered: (r, a) => this.onPermissionAnswered(r, a) });
    this.detach = options.permissionBroker?.attach(conversationId, this.permissionsPending);
  }

  /** Checks the profile and everything it names, then opens (or continues) the conversation. */
  static async create(options: AgentInstanceOptions): Promise<AgentResult<AgentInstance>> {
    const parsed = AgentProfileSchema.safeParse(options.profile);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(profile)"}: ${i.message}`).join("; ");
      return fail(
        agentError("INVALID_PROFILE", `The agent profile is invalid: ${problems}.`, "Fix these fields of the profile.", {
          issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
        }),
      );
    }
    const profile = parsed.data;
    const agentId = options.instanceId ?? profile.id;
    const deliberation = await Deliberation.load(options.workflows, profile.deliberationWorkflowId, profile.protocol);
    if (!deliberation.ok) return deliberation;
    const entries = await resolveAgentEntries(profile, { catalog: options.catalog, workflows: options.workflows });
    if (!entries.ok) return entries;

    const conversationId = options.conversationId ?? crypto.randomUUID();
    let saved: AgentSessionState | undefined;
    let stepsInLog = 0;
    try {
      if (!(await options.conversations.get(conversationId))) await options.conversations.create({ id: conversationId, title: profile.name, activeMode: "agent", agentId });
      saved = await options.stateStore?.load(conversationId);
      // Without a saved session, step numbers go on from the traces already in the log.
      if (!saved) for (const m of await options.conversations.messages(conversationId)) if (m.role === "assistant" && m.agentStep) stepsInLog = Math.max(stepsInLog, m.agentStep.step);
    } catch (error) {
      return fail(agentError("CONVERSATION_FAILED", `The conversation "${conversationId}" could not be opened: ${messageOf(error)}`));
    }
    const privateState = new PrivateState(agentId, saved?.privateState ?? profile.initialPrivateState);
    const events = new AgentEventStream(conversationId, saved?.nextEventSeq ?? 0, options.onEvent, options.logger ?? silentLogger);
    return ok(
      new AgentInstance(
        profile,
        profile.askApproval === true ? [...entries.value, ASK_APPROVAL_ENTRY] : entries.value,
        conversationId,
        deliberation.value,
        privateState,
        events,
        options,
        saved,
        stepsInLog,
      ),
    );
  }

  /** The tools and skills the model is offered: the profile's, less those the permissions deny outright. */
  get manifest(): Manifest {
    const policy = policyOf(this.options);
    if (policy !== this.permitted.policy) this.permitted = { policy, manifest: permittedManifest(this.entries, this.profile, policy, this.agentId) };
    return this.permitted.manifest;
  }

  get status(): AgentStatus {
    return this.currentStatus;
  }

  /** The agent's own private state (a scene's, when one is given, is used instead while in the scene). */
  get privateState(): PrivateState {
    return this.ownPrivateState;
  }

  get pendingQuestion(): string | undefined {
    return this.question?.question;
  }

  pendingPermissions(): PermissionRequest[] {
    return this.permissionsPending.list();
  }

  /** What an `ask_approval` call waits for (`waiting_approval`); a decision answers it through `answerApproval`. */
  get pendingApproval(): { question: string; request: ApprovalRequest; step: number; callId?: string } | undefined {
    const q = this.question;
    return q?.approval ? { question: q.question, request: q.approval, step: q.step, ...(q.callId !== undefined ? { callId: q.callId } : {}) } : undefined;
  }

  /** Sends the user's message and runs the loop; while the agent waits for the user, the message is the answer. */
  async sendMessage(text: string, options: AgentRunOptions = {}): Promise<AgentResult<AgentRunResult>> {
    if (this.controller) return fail(busy());
    if (this.question?.approval) return fail(waitingForApproval(this.question.question));
    const meta = { mode: "agent" as const, agentId: this.agentId };
    const question = this.question;
    const entries = question
      ? this.protocol.observationEntries([{ ...(question.callId ? { callId: question.callId } : {}), toolName: question.toolName, observation: userAnswerObservation(question.toolName, text) }], meta)
      : [userMessage(text, { ...meta, ...(options.messageId !== undefined ? { id: options.messageId } : {}) })];
    try {
      await (options.conversations ? options.conversations(this.options.conversations) : this.options.conversations).append(this.conversationId, entries);
    } catch (error) {
      return fail(agentError("CONVERSATION_FAILED", `The message could not be written to the conversation log: ${messageOf(error)}`));
    }
    this.question = undefined;
    return ok(await this.loop(options));
  }

  /** The conversation's log. */
  messages(): Promise<ConversationMessage[]> {
    return this.options.conversations.messages(this.conversationId);
  }

  /**
   * Continues a loop that waits on an `ask_approval` call with its decision as the call's observation. `step` names
   * the call (a decision for an earlier, already answered request is refused: NOT_WAITING_FOR_APPROVAL).
   */
  async answerApproval(step: number, outcome: ApprovalOutcome, options: AgentRunOptions = {}): Promise<AgentResult<AgentRunResult>> {
    if (this.controller) return fail(busy());
    const question = this.question;
    if (!question?.approval || question.step !== step)
      return fail(agentError("NOT_WAITING_FOR_APPROVAL", `Conversation ${this.conversationId} does not wait for the approval asked in step ${step}.`, "Nothing to continue: it was answered before."));
    const meta = { mode: "agent" as const, agentId: this.agentId };
    const entries = this.protocol.observationEntries(
      [{ ...(question.callId ? { callId: question.callId } : {}), toolName: question.toolName, observation: approvalObservation(question.toolName, outcome) }],
      meta,
    );
    try {
      await (options.conversations ? options.conversations(this.options.conversations) : this.options.conversations).append(this.conversationId, entries);
    } catch (error) {
      return fail(agentError("CONVERSATION_FAILED", `The decision could not be written to the conversation log: ${messageOf(error)}`));
    }
    this.question = undefined;
    return ok(await this.loop(options));
  }

  /**
   * Stops waiting for an approval without a decision (the host closed it: the conversation was cancelled): the status
   * is `cancelled` with `reason`, saved, and the next message is a new one. Nothing to do while a loop runs or when
   * no approval is awaited.
   */
  async withdrawApproval(reason: string): Promise<boolean> {
    if (this.controller || !this.question?.approval) return false;
    this.question = undefined;
    this.currentStatus = "cancelled";
    this.reason = reason;
    this.events.emit({ type: "agent.finished", agentId: this.agentId, status: "cancelled", text: reason });
    await this.save({});
    return true;
  }

  /** Continues the loop from the log without a new message (after `max_steps`, `stuck`, `failed`, `cancelled` or a restart). */
  async resume(options: AgentRunOptions = {}): Promise<AgentResult<AgentRunResult>> {
    if (this.controller) return fail(busy());
    if (this.question?.approval) return fail(waitingForApproval(this.question.question));
    if (this.question) return fail(agentError("WAITING_FOR_USER", `The agent waits for the user's answer to: ${this.question.question}`, "Answer it with sendMessage."));
    return ok(await this.loop(options));
  }

  /** Answers a permission question the loop is waiting on. */
  answerPermission(requestId: string, answer: PermissionAnswer | PermissionAnswer["answer"]): AgentResult<void> {
    const parsed = PermissionAnswerSchema.safeParse(typeof answer === "string" ? { answer } : answer);
    if (!parsed.success) return fail(agentError("INVALID_PERMISSION_ANSWER", `"${String(typeof answer === "string" ? answer : answer.answer)}" is not an answer; use once, always or reject.`));
    if (!this.permissionsPending.answer(requestId, parsed.data)) {
      const open = this.permissionsPending.list().map((r) => r.requestId);
      return fail(
        agentError(
          "UNKNOWN_PERMISSION_REQUEST",
          `No open permission question "${requestId}" in conversation ${this.conversationId}.`,
          open.length > 0 ? `Open questions: ${open.join(", ")}.` : "Nothing is waiting for permission now.",
          { requestId },
        ),
      );
    }
    return ok(undefined);
  }

  /** Stops the running loop (the LLM stream and any running action are aborted). */
  cancel(): void {
    this.controller?.abort();
  }

  /** Detaches from the permission broker; the instance must not be used afterwards. */
  dispose(): void {
    this.cancel();
    this.detach?.();
  }

  private async loop(options: AgentRunOptions): Promise<AgentRunResult> {
    const controller = (this.controller = new AbortController());
    const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
    this.currentStatus = "running";
    this.reason = undefined;
    const memory = new LoopMemory(this.options.mistakes);
    const env = this.environment(signal, options);
    const steps: AgentStepTrace[] = [];
    let result: AgentRunResult | undefined;
    try {
      for (let i = 0; i < this.profile.maxSteps && !result; i++) {
        if (signal.aborted) {
          result = { conversationId: this.conversationId, status: "cancelled", reason: "The run was cancelled.", steps };
          break;
        }
        const step = await runAgentStep(env, ++this.steps, memory);
        steps.push(step.trace);
        if (step.question) this.question = { ...step.question, step: step.trace.step };
        if (step.status !== "running") {
          result = {
            conversationId: this.conversationId,
            status: step.status,
            steps,
            ...(step.reason ? { reason: step.reason } : {}),
            ...(step.text !== undefined ? { text: step.text } : {}),
            ...(step.question ? { question: step.question.question } : {}),
            ...(step.error ? { error: step.error } : {}),
          };
        } else await this.save(options);
      }
      result ??= {
        conversationId: this.conversationId,
        status: "max_steps",
        reason: `The agent used all ${this.profile.maxSteps} steps (maxSteps) without a final answer. Resume to let it go on, or raise maxSteps in the profile.`,
        steps,
      };
    } finally {
      this.controller = undefined;
    }
    const asked = this.question?.approval;
    if (result.status === "waiting_approval" && asked && this.question && this.options.onApprovalAsked) {
      try {
        await this.options.onApprovalAsked({ step: this.question.step, request: asked });
      } catch (error) {
        this.question = undefined;
        result = { ...result, status: "failed", reason: `The approval request could not be stored, so nobody could decide it: ${messageOf(error)}. Send a message to let the agent go on.` };
      }
    }
    this.currentStatus = result.status;
    this.reason = result.reason;
    this.events.emit({
      type: "agent.finished",
      agentId: this.agentId,
      status: result.status,
      ...((result.text ?? result.question ?? result.reason) ? { text: result.text ?? result.question ?? result.reason } : {}),
    });
    await this.save(options);
    return result;
  }

  private environment(signal: AbortSignal, { services: callServices, llm: wrapLlm, userId, conversations, actions }: AgentRunOptions): StepEnvironment {
    const o = this.options;
    const services: NodeServices = { ...o.services, ...callServices };
    services.privateState ??= this.ownPrivateState;
    if (o.llm) services.llm = boundLlm(o.llm, this.profile.llmProfileId);
    if (wrapLlm && services.llm) services.llm = wrapLlm(services.llm);
    // Usage records (and budgets) name the conversation and its user (and the scene, which a scene's own wrapper adds):
    // the user is known here, while the deliberation run's record may not be stored yet when its LLM call is made.
    if (services.llm) services.llm = withLlmCaller(services.llm, { agentId: this.agentId, conversationId: this.conversationId, ...(userId !== undefined ? { userId } : {}) });
    const agentRules = this.profile.permissions ?? [];
    if (o.toolHost)
      services.toolHost = withCallContext(o.toolHost, {
        agentId: this.agentId,
        sessionId: this.conversationId,
        ...(userId !== undefined ? { userId } : {}),
        ...(agentRules.length > 0 ? { agentRules } : {}),
      });
    return {
      agentId: this.agentId,
      conversationId: this.conversationId,
      profile: this.profile,
      manifest: this.manifest,
      deliberation: this.deliberation,
      engine: o.engine,
      executor: this.executor,
      protocol: this.protocol,
      conversations: conversations ? conversations(o.conversations) : o.conversations,
      events: this.events,
      ...(o.onRunEvent ? { onRunEvent: o.onRunEvent } : {}),
      services,
      context: { ...(o.systemPrompt ? { systemPrompt: o.systemPrompt } : {}), ...(o.budget ? { budget: o.budget } : {}) },
      permissions: {
        begin: () => void (this.recording = []),
        end: () => {
          const records = this.recording ?? [];
          this.recording = undefined;
          return records;
        },
      },
      ...(actions ? { actions } : {}),
      ...(o.approvals === true ? {} : { approvalsRefused: APPROVALS_UNAVAILABLE }),
      signal,
    };
  }

  private onPermissionRequested(request: PermissionRequest): void {
    this.currentStatus = "waiting_permission";
    this.events.emit({
      type: "agent.permission.requested",
      agentId: this.agentId,
      requestId: request.requestId,
      tool: request.tool,
      ...(request.target !== undefined ? { target: request.target } : {}),
    });
  }

  private onPermissionAnswered(request: PermissionRequest, answer: PermissionAnswer): void {
    this.recording?.push({ requestId: request.requestId, tool: request.tool, ...(request.target !== undefined ? { target: request.target } : {}), answer: answer.answer });
    this.events.emit({ type: "agent.permission.answered", agentId: this.agentId, requestId: request.requestId, answer: answer.answer });
    if (this.permissionsPending.size === 0 && this.currentStatus === "waiting_permission") this.currentStatus = "running";
  }

  private async save(options: AgentRunOptions): Promise<void> {
    const inner = this.options.stateStore;
    if (!inner) return;
    const store = options.sessions ? options.sessions(inner) : inner;
    try {
      await store.save({
        agentId: this.agentId,
        conversationId: this.conversationId,
        status: this.currentStatus,
        ...(this.reason ? { reason: this.reason } : {}),
        steps: this.steps,
        nextEventSeq: this.events.nextSeq,
        privateState: this.ownPrivateState.snapshot(),
        ...(this.question ? { pendingQuestion: this.question } : {}),
        updatedAt: Date.now(),
      });
    } catch (error) {
      // The conversation log holds every step; a lost session save costs only the counters.
      this.logger.error("agent session state not saved", { conversationId: this.conversationId, error: messageOf(error) });
    }
  }
}

/** The permission rules the manifest follows: the given ones, else the tool host's current ones. */
function policyOf(options: AgentInstanceOptions): PermissionPolicy | undefined {
  return options.permissions ?? (options.toolHost instanceof ToolHost ? options.toolHost.policy : undefined);
}

const APPROVALS_UNAVAILABLE =
  "ask_approval is not available on this server: its agents run on queue-mode workers, where nothing could continue the conversation after the decision. Ask the user with ask_user instead, or go on without the approval if that is allowed.";

function waitingForApproval(question: string): AgentError {
  return agentError("WAITING_FOR_APPROVAL", `The agent waits for an approval of: ${question}`, "Decide it in the approvals inbox (GET /api/approvals, POST /api/approvals/:id/decision).");
}

function busy(): AgentError {
  return agentError("BUSY", "The agent is already running a loop in this conversation.", "Wait for it to finish, or cancel it first.");
}

/** The LLM service with the profile's LLM profile as the default for every request. */
function boundLlm(llm: LlmService, profileId: string | undefined): LlmService {
  if (!profileId) return llm;
  return { chat: (request, options) => llm.chat({ ...request, profileId: request.profileId ?? profileId }, options) };
}
