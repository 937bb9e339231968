import { RunContextSchema, type BuildContextInput, type ChatMessage, type ConversationMode } from "@weft/types";
import { formatModeBanner, formatNodeBrief, formatRunDirective } from "./run-shells.ts";

/** Built-in base rules per mode, used when the caller gives none. */
export const DEFAULT_BASE_RULES: Record<ConversationMode, string> = {
  chat: "You are a helpful assistant inside Weft. Use the tools you are given when they help; otherwise answer directly and concisely.",
  agent:
    "You are an agent inside Weft. Act through the tools and skills you are given, one action at a time, and read each observation before the next step. When no action is needed, answer in plain text.",
  run: "You are executing a Weft workflow run. Follow RUN_DIRECTIVE and NODE_BRIEF, act only through the tools you are given, write outputs where the brief says, and keep the run state up to date.",
};

export class RunContextMissingError extends Error {
  readonly code = "RUN_CONTEXT_REQUIRED";
  constructor(detail: string) {
    super(`Mode "run" needs a runContext: ${detail}`);
    this.name = "RunContextMissingError";
  }
}

/**
 * What precedes the history (seed 003 §4.2): base rules, tool policy, the persona (agent and run
 * modes only, never chat), the MODE banner; in run mode also RUN_DIRECTIVE, NODE_BRIEF and the
 * step context as user messages (seed 000 §3.1). Nothing here is stored in the log.
 */
export function buildSystemPrefix(input: Pick<BuildContextInput, "mode" | "persona" | "systemPrompt" | "toolPolicy" | "runContext">): ChatMessage[] {
  const { mode } = input;
  const prefix: ChatMessage[] = [{ role: "system", content: input.systemPrompt?.trim() || DEFAULT_BASE_RULES[mode] }];
  if (input.toolPolicy?.trim()) prefix.push({ role: "system", content: input.toolPolicy.trim() });
  if (mode !== "chat" && input.persona?.trim()) prefix.push({ role: "system", content: input.persona.trim() });
  prefix.push({ role: "system", content: formatModeBanner(mode) });

  switch (mode) {
    case "chat":
    case "agent":
      return prefix;
    case "run": {
      if (!input.runContext) throw new RunContextMissingError("pass at least { workflow: <workflow id> } so RUN_DIRECTIVE can be written.");
      const parsed = RunContextSchema.safeParse(input.runContext);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new RunContextMissingError(`runContext.${issue.path.join(".") || "(root)"}: ${issue.message}`);
      }
      const run = parsed.data;
      prefix.push({ role: "user", content: formatRunDirective(run) });
      if (run.node) prefix.push({ role: "user", content: formatNodeBrief(run.node) });
      if (run.stepContext?.trim()) prefix.push({ role: "user", content: run.stepContext.trim() });
      return prefix;
    }
    default: {
      const never: never = mode;
      return never;
    }
  }
}
