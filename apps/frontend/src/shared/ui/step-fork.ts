/** What the step-fork form asks to change at the step: its LLM output, or the observation of its call `index`. */
export type StepForkChange = { kind: "llmOutput"; text: string } | { kind: "observation"; index: number; text: string; edited: boolean };

/** The form's request: the change, and the agent profile version for the live steps (absent: the current profile). */
export interface StepForkRequest {
  change: StepForkChange;
  agentVersion?: number;
}

/** A call of the step whose observation can be edited (`index`: its place among the step's calls, from 0). */
export interface StepForkObservation {
  index: number;
  text: string;
}

/** A saved version of the agent profile, offered for the live steps. */
export interface StepForkVersion {
  number: number;
  label: string;
}

/** A version as the form lists it: its number, when it was saved and its save message. */
export function versionLabel(version: { number: number; savedAt: number; message?: string | undefined }): string {
  const when = new Date(version.savedAt).toISOString().slice(0, 16).replace("T", " ");
  return `v${version.number} · ${when}${version.message ? ` · ${version.message}` : ""}`;
}
