import type { ConversationMessage } from "@weft/types";
import type { CallResult, ErrorResult, Manifest } from "../action/index.ts";
import type { MessageMeta } from "../conversation/index.ts";
import type { LlmOutput } from "./deliberation.ts";

/** One action the model asked for: validated, or refused with the Observation it gets. */
export interface PlannedAction {
  /** The native tool call id; absent for an `<ACTION>` block. */
  callId?: string;
  parsed: CallResult | ErrorResult;
  /** Said after the action's observation (e.g. that text after `</ACTION>` was dropped). */
  note?: string;
}

export interface ReadOutput {
  /** The reply part of the output (for a step without actions: the answer). */
  responseText: string;
  notes: string[];
  actions: PlannedAction[];
  /** The part of the output the conversation keeps, when not all of it (text after `</ACTION>` is dropped). */
  keptText?: string;
  /**
   * The only action is a call written as text the protocol does not run (quoted, JSON, `<ACTION>`
   * for a native agent): refused once; the same kind of reply right after the refusal is the answer.
   */
  callAsText: boolean;
}

/** An observation to put into the conversation log, for one action. */
export interface ObservationEntry {
  callId?: string;
  toolName: string;
  observation: string;
  runId?: string;
  durationMs?: number;
  fullResultRef?: string;
}

/**
 * What differs between `<ACTION>` XML and native tool calls: how the output is read into actions,
 * and how observations go back into the conversation (a user message starting with
 * `Observation:`, or `role: tool` messages in call order, seed 000 §3.2).
 */
export interface AgentProtocolAdapter {
  read(output: LlmOutput, manifest: Manifest): ReadOutput;
  observationEntries(observations: readonly ObservationEntry[], meta: MessageMeta): ConversationMessage[];
}
