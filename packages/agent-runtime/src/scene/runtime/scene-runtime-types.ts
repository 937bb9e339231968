import type { z } from "zod";
import type {
  AgentStateStore,
  AgentTrigger,
  ConversationStore,
  LlmService,
  Logger,
  NodeError,
  NodeServices,
  RunEventSink,
  SceneAgent,
  SceneInput,
  SceneStatus,
  SceneStatusReason,
  ToolCall,
} from "@weft/types";
import type { EffectGate } from "./effect-gate.ts";
import type { Tracing } from "../../tracing/index.ts";
import type { SceneStateStore } from "../persistence/scene-state-store.ts";

/** What the scene needs from an agent's profile. */
export interface ScenePeerProfile {
  subscribedEvents?: readonly string[];
  initialPrivateState?: Record<string, unknown>;
}

export interface DeliberationContext {
  sceneId: string;
  /** Aborted when the scene stops. */
  signal: AbortSignal;
  /** World, events and private state bound to this agent; the AgentInstance adds the LLM and tool host. */
  services: NodeServices;
  /**
   * The model as this deliberation must use it, around the agent's own: each answer goes into the
   * scene log as soon as it arrives (committed with the effects that follow it), and a deliberation
   * resumed after a crash gets the answers recorded before the crash again instead of asking anew.
   */
  llm(inner: LlmService): LlmService;
  /**
   * The conversation store as this deliberation must use it: each append (the trigger's message, a
   * step's record) waits until the scene has committed everything before it, so after a crash the
   * conversation never holds a step whose effects the scene lost.
   */
  conversations(inner: ConversationStore): ConversationStore;
  /** The agent's session store as this deliberation must use it: its counters are saved with the scene's next commit. */
  sessions(inner: AgentStateStore): AgentStateStore;
  /** Where each completed tool call is logged, and taken from after a crash instead of running again. */
  actions: SceneActionJournal;
  /** The conversation already holds this resumed deliberation's first `steps` steps: they are not re-run. */
  resumeAfter(steps: number): void;
}

/** A tool or skill call as the scene records it. */
export interface SceneActionCall {
  toolId: string;
  params: Record<string, unknown>;
}

/** A call's outcome (the agent's `ActionOutcome`). */
export interface SceneActionOutcome {
  status: "completed" | "failed" | "cancelled";
  ok: boolean;
  runId?: string;
  result?: unknown;
  error?: NodeError;
  observation: string;
  fullResultRef?: string;
  startedAt: number;
  durationMs: number;
}

/**
 * Called as each call is about to run: its outcome when a deliberation cut off by a crash had
 * already run it (then it is not run again), and where to report the outcome of one that runs.
 */
export interface SceneActionJournal {
  begin(call: SceneActionCall): { recorded?: SceneActionOutcome; completed(outcome: SceneActionOutcome): void };
}

/** A model output as the scene log keeps it. */
export interface RecordedLlmOutput {
  text: string;
  reasoning?: string;
  toolCalls?: ToolCall[];
}

/** One deliberation of one agent for one trigger (the AgentInstance's loop plugs in here). */
export type Deliberate = (instanceId: string, trigger: AgentTrigger, context: DeliberationContext) => Promise<void>;

export interface SceneRuntimeOptions {
  scene: SceneInput;
  profileOf: (instanceId: string, agent: SceneAgent) => ScenePeerProfile | undefined;
  deliberate: Deliberate;
  /** Every scene event, stamped with the scene id as its stream and a sequence number. */
  onEvent?: RunEventSink;
  /** When given, the state and log are saved in the background, `persistEveryMs` apart (`persist()` waits). */
  store?: SceneStateStore;
  /** How long changes gather before one save of log and state; default 100 ms. */
  persistEveryMs?: number;
  /** Payload schemas by exact topic. */
  payloadSchemas?: Record<string, z.ZodType>;
  logger?: Logger;
  /** When the process traces: each agent's deliberation for a trigger is a `scene step` span (`scene-step-span.ts`). */
  tracing?: Tracing;
  clock?: () => number;
  worldHistoryLimit?: number;
  /** Holds agents' world writes and publishes until their turn (a replay following the recorded order). */
  effectGate?: EffectGate;
}

export interface SceneStatusInfo {
  status: SceneStatus;
  reason?: SceneStatusReason;
  budget: { limit: number; used: number };
  /** The scene's clock (`SceneClock`): its running time in this session, measured at `at` (epoch ms). */
  clock: { runningMs: number; at: number };
  agents: Array<{ instanceId: string; busy: boolean; waiting: number }>;
}
