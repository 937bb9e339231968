import { defineStore } from "pinia";
import { computed, reactive, ref, shallowRef, watch } from "vue";
import { isWorkflowRunEvent, type Conversation, type PermissionAnswer, type RunEvent } from "@weft/types";
import { agentsApi, type ConversationForkRequest, type ConversationView } from "./agents-api.ts";
import { useLiveSocket } from "../../shared/live/useLiveSocket.ts";
import { transcriptOf } from "./agent-chat.ts";
import { coalescedRefresh } from "../../shared/lib/coalesced-refresh.ts";
import { applyStepEvent, forgetStepsUpTo, type LiveSteps } from "./agent-live.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { describeApiError } from "../../shared/api/errors.ts";

/** Reads of the conversation follow each other at least this far apart while it keeps changing. */
const REFRESH_GAP_MS = 150;

/**
 * Talking to one agent: its conversations, the open one's log (read again whenever a step ends or
 * the agent asks or stops) and the steps under way from its event stream on `/ws`, and the user's
 * part: messages (an answer while the agent waits on a question), cancel, permission answers.
 */
export const useAgentChatStore = defineStore("agent-chat", () => {
  const ui = useUiStore();
  const { socket, status: socketStatus } = useLiveSocket((error) => ui.apiError("Live updates", error));

  const agentId = ref<string | null>(null);
  const conversations = shallowRef<Conversation[]>([]);
  /** The open conversation; null: the next message starts a new one. */
  const conversationId = ref<string | null>(null);
  const view = shallowRef<ConversationView | null>(null);
  const live = reactive<LiveSteps>({ steps: [], recorded: {} });
  /** The message just sent, until the log shows it. */
  const pending = ref<string | undefined>(undefined);
  const sending = ref(false);

  /** Bumped when another agent or conversation is opened: answers still coming for the previous one are dropped. */
  let generation = 0;
  let unsubscribe: (() => void) | null = null;
  /** The log length when the pending message was sent. */
  let sentAt = 0;
  /** Set by `agent.finished`: the loop is over, though the server may still be storing its end for a moment. */
  let finished = false;
  let lastError: string | null = null;

  const agentState = computed(() => view.value?.agent ?? null);
  /** The loop is working: reading, acting or waiting for a permission answer. */
  const running = computed(() => pending.value !== undefined || !!agentState.value?.running);
  const items = computed(() =>
    transcriptOf({
      messages: view.value?.messages ?? [],
      live: live.steps,
      ...(pending.value !== undefined ? { pending: pending.value } : {}),
      ...(agentState.value ? { state: agentState.value } : {}),
    }),
  );

  function reset() {
    generation++;
    unsubscribe?.();
    unsubscribe = null;
    view.value = null;
    live.steps = [];
    live.recorded = {};
    pending.value = undefined;
    finished = false;
  }

  /** Opens an agent's chat on its most recent conversation (or a new one). */
  async function open(id: string | null): Promise<void> {
    if (id === agentId.value) return;
    reset();
    agentId.value = id;
    conversations.value = [];
    conversationId.value = null;
    if (!id) return;
    const gen = generation;
    const r = await agentsApi.conversations(id);
    if (gen !== generation) return;
    if (!r.ok) return void ui.apiError("Could not load the conversations", r.error);
    conversations.value = r.value;
    const latest = r.value[0];
    if (latest) selectConversation(latest.id);
  }

  async function loadConversations(): Promise<void> {
    const id = agentId.value;
    if (!id) return;
    const r = await agentsApi.conversations(id);
    if (r.ok && id === agentId.value) conversations.value = r.value;
  }

  /** Shows a conversation (null: a new one), following its events from the start of its stream. */
  function selectConversation(id: string | null): void {
    reset();
    conversationId.value = id;
    if (!id) return;
    follow(id);
    requestRefresh();
  }

  function follow(id: string) {
    unsubscribe = socket.subscribe(id, -1, (event) => onEvent(id, event));
  }

  function onEvent(id: string, event: RunEvent) {
    // The runs an agent starts have streams of their own; its conversation's stream carries none of their events.
    if (id !== conversationId.value || isWorkflowRunEvent(event)) return;
    switch (event.type) {
      case "agent.step":
        applyStepEvent(live, event);
        if (event.phase === "done") requestRefresh();
        return;
      case "agent.llm.output":
      case "agent.action.parsed":
      case "agent.action.rejected":
      case "agent.observation":
        applyStepEvent(live, event);
        return;
      case "agent.finished":
        finished = true;
        requestRefresh();
        return;
      case "agent.permission.requested":
      case "agent.permission.answered":
        requestRefresh();
        return;
      case "scene.event":
      case "scene.status":
      case "world.changed":
      case "scene.log":
      case "eval.progress":
      case "eval.finished":
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  /** Reads the conversation again as long as something said it changed (or its end is still being stored). */
  const refresh = coalescedRefresh(async () => {
    const id = conversationId.value;
    const gen = generation;
    if (!id) return false;
    const r = await agentsApi.conversation(id);
    if (gen !== generation) return false;
    if (!r.ok) {
      // One toast per distinct failure, not one per event while the server is away.
      if (lastError !== r.error.message) ui.apiError("Could not read the conversation", r.error);
      lastError = r.error.message;
      return false;
    }
    lastError = null;
    take(r.value);
    return finished && !!r.value.agent?.running;
  }, REFRESH_GAP_MS);
  const requestRefresh = () => refresh.request();

  function take(next: ConversationView) {
    view.value = next;
    const lastStep = next.messages.reduce((n, m) => (m.role === "assistant" && m.agentStep ? Math.max(n, m.agentStep.step) : n), 0);
    if (lastStep > 0 && next.conversation.agentId) forgetStepsUpTo(live, next.conversation.agentId, lastStep);
    if (pending.value !== undefined && next.messages.length > sentAt) pending.value = undefined;
  }

  // After a reconnect the socket replays what was missed; reading the log once more costs little.
  watch(socketStatus, (s) => {
    if (s === "open" && conversationId.value) requestRefresh();
  });

  /** Sends a message (the answer, while the agent waits on a question); a new conversation starts when none is open. */
  async function send(text: string): Promise<boolean> {
    const id = agentId.value;
    if (!id || sending.value) return false;
    sending.value = true;
    const continuing = conversationId.value;
    // Before the request: this loop's `agent.finished` may arrive before its answer does.
    finished = false;
    sentAt = view.value?.messages.length ?? 0;
    const r = await agentsApi.sendMessage(id, text, continuing ?? undefined);
    sending.value = false;
    if (!r.ok) {
      ui.apiError("Could not send the message", r.error);
      return false;
    }
    if (id !== agentId.value || continuing !== conversationId.value) return true;
    pending.value = text;
    if (!continuing) {
      conversationId.value = r.value;
      follow(r.value);
      void loadConversations();
    }
    requestRefresh();
    return true;
  }

  async function cancel(): Promise<void> {
    const id = conversationId.value;
    if (!id) return;
    const r = await agentsApi.cancel(id);
    if (!r.ok) ui.apiError("Could not cancel the agent", r.error);
    else requestRefresh();
  }

  async function answerPermission(requestId: string, answer: PermissionAnswer): Promise<void> {
    const id = conversationId.value;
    if (!id) return;
    const r = await agentsApi.answerPermission(id, requestId, answer);
    if (!r.ok) ui.apiError("Could not answer the permission request", r.error);
    requestRefresh();
  }

  /**
   * Forks the open conversation at a step and opens the fork (its loop goes on live from there); the parent stays as it
   * was and lists the fork. Null when it was made, else why the server refused (the dialog shows it, to fix and retry).
   */
  async function fork(body: ConversationForkRequest): Promise<string | null> {
    const id = conversationId.value;
    if (!id) return "No conversation is open.";
    const r = await agentsApi.fork(id, body);
    if (!r.ok) return describeApiError(r.error);
    selectConversation(r.value);
    void loadConversations();
    return null;
  }

  return { agentId, conversations, conversationId, view, agentState, running, items, sending, socketStatus, open, selectConversation, send, cancel, answerPermission, fork };
});
