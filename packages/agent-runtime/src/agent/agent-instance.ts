import {
  AgentProfileSchema,
  silentLogger,
  type AgentProfile,
  type AgentSessionState,
  type AgentStatus,
  type AgentStepTrace,
  type ApprovalOutcome,
  type ConversationMessage,
  type LlmService,
  type Logger,
  type NodeServices,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
  messageOf,
} from "@weft/types";
import type { Manifest, ManifestEntry } from "../action/index.ts";
import { userMessage } from "../conversation/index.ts";
import { withLlmCaller } from "../llm/llm-caller.ts";
import { PrivateState } from "../scene/index.ts";
import { ToolHost, withCallContext } from "../toolhost/index.ts";
import { ActionExecutor } from "./action-executor.ts";
import { handOverApproval, notWaitingForApproval, pendingApprovalOf, waitingForApproval, APPROVALS_UNAVAILABLE, type PendingApproval } from "./agent-approval-waits.ts";
import { AgentEventStream } from "./agent-events.ts";
import type { AgentInstanceOptions, AgentRunOptions, AgentRunResult } from "./agent-instance-options.ts";
import { permittedManifest, resolveAgentEntries } from "./agent-manifest.ts";
import { PermissionWaits } from "./agent-permission-waits.ts";
import { runAgentStep } from "./agent-step.ts";
import { approvalObservation, ASK_APPROVAL_ENTRY } from "./ask-approval.ts";
import { userAnswerObservation } from "./ask-user.ts";
import { Deliberation } from "./deliberation.ts";
import { agentError, fail, ok, type AgentError, type AgentResult } from "./errors.ts";
import { LoopMemory } from "./loop-memory.ts";
import type { AgentProtocolAdapter } from "./protocol.ts";
import { nativeProtocol } from "./protocol-native.ts";
import { xmlProtocol } from "./protocol-xml.ts";
import type { PendingQuestion } from "./step-actions.ts";
import type { StepEnvironment } from "./step-environment.ts";

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
  private readonly permissionWaits: PermissionWaits;
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
    this.permissionWaits = new PermissionWaits(this.agentId, conversationId, events, options.permissionBroker, (waiting) => {
      if (waiting) this.currentStatus = "waiting_permission";
      else if (this.currentStatus === "waiting_permission") this.currentStatus = "running";
    });
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
    return this.permissionWaits.list();
  }

  /** What an `ask_approval` call waits for (`waiting_approval`); a decision answers it through `answerApproval`. */
  get pendingApproval(): PendingApproval | undefined {
    return pendingApprovalOf(this.question);
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
    const written = await this.appendToLog(entries, options, "message");
    if (!written.ok) return written;
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
    if (!question?.approval || question.step !== step) return fail(notWaitingForApproval(this.conversationId, step));
    const meta = { mode: "agent" as const, agentId: this.agentId };
    const entries = this.protocol.observationEntries(
      [{ ...(question.callId ? { callId: question.callId } : {}), toolName: question.toolName, observation: approvalObservation(question.toolName, outcome) }],
      meta,
    );
    const written = await this.appendToLog(entries, options, "decision");
    if (!written.ok) return written;
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
    return this.permissionWaits.answer(requestId, answer);
  }

  /** Stops the running loop (the LLM stream and any running action are aborted). */
  cancel(): void {
    this.controller?.abort();
  }

  /** Detaches from the permission broker; the instance must not be used afterwards. */
  dispose(): void {
    this.cancel();
    this.permissionWaits.dispose();
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
    if (result.status === "waiting_approval") {
      const lost = await handOverApproval(this.question, this.options.onApprovalAsked);
      if (lost !== undefined) {
        this.question = undefined;
        result = { ...result, status: "failed", reason: lost };
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
      permissions: this.permissionWaits.recorder,
      ...(actions ? { actions } : {}),
      ...(o.approvals === true ? {} : { approvalsRefused: APPROVALS_UNAVAILABLE }),
      signal,
    };
  }

  /** Appends the user's `what` (message or decision) to the log, through this loop's wrapper of the store when it has one. */
  private async appendToLog(entries: ConversationMessage[], options: AgentRunOptions, what: string): Promise<AgentResult<void>> {
    try {
      await (options.conversations ? options.conversations(this.options.conversations) : this.options.conversations).append(this.conversationId, entries);
      return ok(undefined);
    } catch (error) {
      return fail(agentError("CONVERSATION_FAILED", `The ${what} could not be written to the conversation log: ${messageOf(error)}`));
    }
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

function busy(): AgentError {
  return agentError("BUSY", "The agent is already running a loop in this conversation.", "Wait for it to finish, or cancel it first.");
}

/** The LLM service with the profile's LLM profile as the default for every request. */
function boundLlm(llm: LlmService, profileId: string | undefined): LlmService {
  if (!profileId) return llm;
  return { chat: (request, options) => llm.chat({ ...request, profileId: request.profileId ?? profileId }, options) };
}
