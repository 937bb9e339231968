import type { ManifestEntry } from "../action/index.ts";
import { formatObservation } from "../action/index.ts";

/** The built-in pseudo-tool an agent calls to ask the user something; the loop then waits. */
export const ASK_USER_ID = "ask_user";

export const ASK_USER_ENTRY: ManifestEntry = {
  id: ASK_USER_ID,
  kind: "tool",
  name: ASK_USER_ID,
  description: "Asks the user a question and waits for the reply. Only when you cannot go on without information that only the user has.",
  inputSchema: {
    type: "object",
    properties: { question: { type: "string", description: "The question, complete and self-contained." } },
    required: ["question"],
    additionalProperties: false,
  },
  params: [{ name: "question", type: "string", required: true, description: "The question, complete and self-contained.", multi: false }],
};

export function isAskUser(call: { toolId: string; toolKind: "tool" | "skill" }): boolean {
  return call.toolKind === "tool" && call.toolId === ASK_USER_ID;
}

/** The Observation an `ask_user` call gets once the user has replied. */
export function userAnswerObservation(toolName: string, answer: string): string {
  return formatObservation({ kind: "success", toolName, outputs: { answer } }, { maxChars: Number.MAX_SAFE_INTEGER });
}
