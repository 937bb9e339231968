import type { ConversationMessage } from "@weft/types";
import type { CallResult, ErrorResult, Manifest } from "../action/index.ts";
import type { MessageMeta } from "../conversation/index.ts";
import type { LlmOutput } from "./deliberation.ts";

/** One action the model asked for: validated, or refused with the Observation it gets. */
export interface PlannedAction {
  /** The native tool call id; absent for an `<ACTION>` block. */
  callId?: string;
  parsed: CallResult | ErrorResult;
}

export interface ReadOutput {
  /** The reply part of the output (for a step without actions: the answer). */
  responseText: string;
  notes: string[];
  actions: PlannedAction[];
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
