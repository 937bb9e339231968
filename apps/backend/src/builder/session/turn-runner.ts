import { BUILDER_REPAIR_PREFIX, type BuilderToolCall, type BuilderTurn, type ConversationStore, type ToolCall } from "@weft/types";
import { assistantMessage, buildContext, llmErrorMessage, toolResultMessage, userMessage, type MessageMeta, type ProviderRequest } from "@weft/agent-runtime";
import { viewOf, type BuilderContext } from "../builder-context.ts";
import type { ChangeSetService } from "../changes/change-set-service.ts";
import { BuilderError } from "../domain/errors.ts";
import { formatBuilderIssue } from "../domain/issues.ts";
import type { ChangeSetRecord, SessionRecord } from "../domain/records.ts";
import { historyWindow } from "../prompt/history-window.ts";
import { composePromptLayers, systemPromptOf } from "../prompt/prompt-composer.ts";
import { APPLY_TOOL, type BuilderToolbox } from "../tools/tool-registry.ts";
import type { BuilderLlm } from "./builder-llm.ts";
import { targetState } from "../overlay/target-state.ts";

export interface TurnRunnerDeps {
  ctx: BuilderContext;
  changeSets: ChangeSetService;
  toolbox: BuilderToolbox;
  llm: BuilderLlm;
  conversations: ConversationStore;
  /** The LLM profile a session talks to (undefined: the default profile). */
  profileFor(session: SessionRecord): Promise<string | undefined>;
  maxModelCalls: number;
}

const CONTEXT_BUDGET = { maxMessages: 400, maxChars: 400_000, toolOutputThresholdChars: 60_000, toolOutputPreviewChars: 6_000 };

function repairRequest(cs: ChangeSetRecord, round: number, of: number): string {
  const errors = cs.validation?.errors ?? [];
  return [
    `${BUILDER_REPAIR_PREFIX} Change set ${cs.id} (version ${cs.version}) did not pass validation:`,
    ...errors.map((e) => `- ${formatBuilderIssue(e)}`),
    `Fix these problems: stage a corrected change with builder_change_stage, validate it with builder_change_validate, then summarise for the user. (Repair round ${round} of ${of}.)`,
  ].join("\n");
}

/**
 * One user message of a session: the tool-call loop with the model (seed 001 §5.2). Every entry
 * goes to the session's conversation log; the model sees the layered prompt, the latest turns and
 * a summary of older ones. When the model stops with an invalid change staged in this turn, the
 * server asks it to repair it, at most `maxRepairRounds` times.
 */
export class TurnRunner {
  constructor(private readonly deps: TurnRunnerDeps) {}

  /** `userId`: who sent the message, named on the usage of its model calls. */
  async run(sessionId: string, text: string, signal: AbortSignal, userId?: string): Promise<BuilderTurn> {
    const { ctx, changeSets, conversations } = this.deps;
    const first = await changeSets.requireActive(sessionId);
    const conversationId = first.conversationId;
    const meta: MessageMeta = { mode: "chat", ...(first.target.type === "workflow" || first.target.type === "node" ? { workflowId: first.target.workflowId } : {}) };
    await conversations.append(conversationId, [userMessage(text, meta)]);
    await ctx.store.appendAudit(sessionId, "ai.message.sent", { chars: text.length });
    const versionAtStart = (await ctx.store.nextVersion(sessionId)) - 1;
    const profileId = await this.deps.profileFor(first);
    const result: BuilderTurn = { status: "completed", assistantSummary: "", toolCalls: [], repairRounds: 0 };

    try {
      for (let call = 0; call < this.deps.maxModelCalls; call++) {
        if (signal.aborted) return { ...result, status: "cancelled" };
        const session = await changeSets.requireActive(sessionId);
        const outcome = await this.deps.llm.chat(profileId, await this.request(session), signal, userId);
        if (!outcome.ok) {
          await conversations.append(conversationId, [llmErrorMessage(outcome.error, meta)]);
          if (outcome.error.code === "CANCELLED") return { ...result, status: "cancelled" };
          const { code, message, hint } = outcome.error;
          return { ...result, status: "failed", error: { code: "AI_PROVIDER_ERROR", llmCode: code, message, hint } };
        }
        await conversations.append(conversationId, [assistantMessage(outcome.result, meta)]);
        if (outcome.result.toolCalls.length > 0) {
          await this.runTools(sessionId, conversationId, outcome.result.toolCalls, signal, result, meta);
          continue;
        }
        result.assistantSummary = outcome.result.text;
        const invalid = await this.invalidChangeOfTurn(sessionId, versionAtStart);
        if (!invalid || result.repairRounds >= session.maxRepairRounds) return result;
        result.repairRounds++;
        await conversations.append(conversationId, [userMessage(repairRequest(invalid, result.repairRounds, session.maxRepairRounds), meta)]);
      }
      return { ...result, status: "limit", assistantSummary: result.assistantSummary || `Stopped after ${this.deps.maxModelCalls} model calls for one message; send another message to go on.` };
    } catch (error) {
      // The session was cancelled while the model worked: the turn ends, nothing more is staged.
      if (error instanceof BuilderError && error.code === "AI_SESSION_NOT_ACTIVE") return { ...result, status: "cancelled" };
      throw error;
    }
  }

  private async runTools(sessionId: string, conversationId: string, calls: readonly ToolCall[], signal: AbortSignal, result: BuilderTurn, meta: MessageMeta): Promise<void> {
    const { ctx, changeSets, toolbox, conversations } = this.deps;
    for (const call of calls) {
      const started = performance.now();
      const session = await changeSets.requireActive(sessionId);
      const { name, outcome } = signal.aborted
        ? { name: call.function.name, outcome: { ok: false as const, error: { code: "E_ABORTED", message: "The turn was stopped before this call ran.", hint: "ask the user whether to go on" } } }
        : await toolbox.call(call.function.name, call.function.arguments, { session, ctx, changeSets });
      await conversations.append(conversationId, [toolResultMessage({ toolCallId: call.id, result: outcome, toolName: name, durationMs: performance.now() - started }, meta)]);
      const summary: BuilderToolCall = { callId: call.id, name, ok: outcome.ok };
      if (!outcome.ok) summary.code = outcome.error.code;
      if (outcome.ok && typeof outcome.changeSetId === "string") summary.changeSetId = outcome.changeSetId;
      result.toolCalls.push(summary);
      await ctx.store.appendAudit(sessionId, name === APPLY_TOOL ? "ai.tool.forbidden" : "ai.tool.called", { tool: name, ok: outcome.ok, ...(summary.code ? { code: summary.code } : {}) });
    }
  }

  /** The change set staged in this turn if it is invalid, validating it first when the model did not. */
  private async invalidChangeOfTurn(sessionId: string, versionAtStart: number): Promise<ChangeSetRecord | undefined> {
    const { changeSets } = this.deps;
    const session = await changeSets.requireActive(sessionId);
    if (!session.latestChangeSetId) return undefined;
    let cs = await changeSets.require(session);
    if (cs.version <= versionAtStart) return undefined;
    if (cs.status === "staged") cs = await changeSets.validate(sessionId, cs.id);
    return cs.status === "rejected" && cs.statusReason === "invalid" ? cs : undefined;
  }

  private async request(session: SessionRecord): Promise<ProviderRequest> {
    const { ctx, conversations, toolbox } = this.deps;
    const window = historyWindow(await conversations.messages(session.conversationId));
    const view = await viewOf(ctx, session);
    const latest = session.latestChangeSetId ? await ctx.store.getChangeSet(session.latestChangeSetId) : undefined;
    const layers = composePromptLayers({
      session,
      targetState: await targetState(view, session.target),
      ...(latest ? { latestChangeSet: { id: latest.id, version: latest.version, status: latest.status, summary: latest.summary, errorCount: latest.validation?.errors.length ?? 0 } } : {}),
      workingCopy: view.entries.map((e) => ({ type: e.type, key: e.key, deleted: e.value === null })),
      ...(window.summary ? { historySummary: window.summary } : {}),
    });
    const { messages } = buildContext({ mode: "chat", history: window.recent, systemPrompt: systemPromptOf(layers), budget: CONTEXT_BUDGET, passBackReasoning: true });
    return { messages, tools: toolbox.openAiTools(), toolChoice: "auto" };
  }
}
