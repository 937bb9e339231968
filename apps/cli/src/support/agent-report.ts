import { displayUrl, type AgentRunResult } from "@weft/agent-runtime";
import type { LlmProfile, RunEvent } from "@weft/types";
import { EXIT_FAILED, EXIT_INTERRUPTED } from "./cli-error.ts";

/** The agent asked the user something and nobody at a terminal can answer. */
export const EXIT_WAITING = 3;

/** The LLM a CLI run talks to: the WEFT_LLM_* provider, or the built-in demo. */
export interface CliLlm {
  profile: LlmProfile;
  fromEnv: boolean;
}

const indent = (text: string) => text.replace(/^/gm, "    ");

/** One `agent.*` event as a line (or a few) of the run's progress, on stdout. */
export function printAgentEvent(event: RunEvent, print: (text: string) => void): void {
  switch (event.type) {
    case "agent.llm.output":
      print(`\nstep ${event.step} · LLM${event.reasoning ? ` (reasoning: ${event.reasoning.length} characters)` : ""}${event.finishReason === "length" ? " (cut off at the output limit)" : ""}`);
      if (event.text.trim()) print(indent(event.text.trim()));
      return;
    case "agent.action.parsed":
      print(`step ${event.step} · action ${event.toolId} ${JSON.stringify(event.params)}${event.notes.length ? ` (repaired: ${event.notes.join(" ")})` : ""}`);
      return;
    case "agent.action.rejected":
      print(`step ${event.step} · action rejected (${event.code})`);
      return;
    case "agent.observation":
      // Exactly the text the model gets next.
      print(`step ${event.step} · observation${event.ok ? "" : " (failed)"}`);
      print(indent(event.text));
      return;
    case "agent.permission.requested":
      print(`permission asked: ${event.tool}${event.target ? ` on ${event.target}` : ""}`);
      return;
    default:
      return;
  }
}

/** How the run ended, for a person: the answer on stdout, or what went wrong and one fix on stderr. Returns the exit code. */
export function reportAgentRun(result: AgentRunResult, llm: CliLlm, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  switch (result.status) {
    case "completed":
      if (!json) process.stdout.write(`\nanswer: ${result.text ?? ""}\n`);
      return 0;
    case "waiting_user":
      process.stderr.write(`weft: the agent asks: ${result.question ?? ""}\nRun it at a terminal to answer, or put the answer into --message.\n`);
      return EXIT_WAITING;
    case "cancelled":
      process.stderr.write("weft: cancelled.\n");
      return EXIT_INTERRUPTED;
    case "failed":
    case "cut_off": {
      const { headline, fix } = failure(result, llm);
      process.stderr.write(`weft: ${headline}\n${fix ? `Fix: ${fix}\n` : ""}`);
      return EXIT_FAILED;
    }
    case "stuck":
      process.stderr.write(`weft: the agent stopped (stuck): ${result.reason ?? ""}\nFix: the observations above say what the model got wrong; ask again more precisely, or use a stronger model.\n`);
      return EXIT_FAILED;
    case "max_steps":
      process.stderr.write(`weft: the agent stopped (max_steps): ${result.reason ?? ""}\n`);
      return EXIT_FAILED;
    case "budget_exceeded":
      process.stderr.write(`weft: the agent stopped (budget_exceeded): ${result.reason ?? ""}\n`);
      return EXIT_FAILED;
    case "idle":
    case "running":
    case "waiting_permission":
    case "waiting_approval": // the CLI offers no `ask_approval` (nothing here could decide it)
      process.stderr.write(`weft: the agent ended in an unexpected state (${result.status}).\n`);
      return EXIT_FAILED;
    default: {
      const never: never = result.status;
      return never;
    }
  }
}

/** What failed in the user's terms, and the one thing to do about it (the WEFT_LLM_* setting to change, when it is one). */
function failure(result: AgentRunResult, llm: CliLlm): { headline: string; fix?: string } {
  const error = result.error;
  const url = displayUrl(llm.profile.baseUrl);
  const partial = typeof error?.details?.partialText === "string" ? error.details.partialText : "";
  const written = partial ? ` What it had written:\n${indent(partial)}` : "";
  if (error?.code === "ANSWER_CUT_OFF") {
    return { headline: `the answer was cut off at the model's output limit (finish_reason: length), also after asking it to continue. What it wrote:\n${indent(result.text ?? "")}`, fix: error.hint };
  }
  if (error?.code !== "LLM_FAILED") return { headline: error?.message ?? result.reason ?? "the agent failed", ...(error?.hint ? { fix: error.hint } : {}) };
  const env = (setting: string, otherwise: string | undefined) => (llm.fromEnv ? setting : otherwise);
  switch (error.details?.llmCode) {
    case "NETWORK":
      return partial
        ? {
            headline: `the connection to the LLM at ${url} broke off after it had started answering (NETWORK).${written}`,
            fix: "run the agent again; if it keeps happening, check the provider's status page.",
          }
        : {
            headline: `the LLM at ${url} could not be reached (NETWORK).`,
            fix: env("check WEFT_LLM_BASE_URL (and that the provider is running), or unset it to use the built-in demo LLM.", error.hint),
          };
    case "TIMEOUT":
      return {
        headline: `the LLM at ${url} went ${llm.profile.timeoutMs} ms without answering (TIMEOUT).${written}`,
        fix: `raise WEFT_LLM_TIMEOUT_MS (now ${llm.profile.timeoutMs}), or check that the provider at ${url} is responsive.`,
      };
    case "AUTH":
      return { headline: error.message, fix: env(`set WEFT_LLM_API_KEY to a valid key for ${url}, one that may use the model "${llm.profile.model}".`, error.hint) };
    case "MODEL_NOT_FOUND":
      return { headline: error.message, fix: env(`set WEFT_LLM_MODEL to a model that ${url} serves (GET ${url}/models lists them).`, error.hint) };
    default:
      return { headline: `${error.message}${written}`, ...(error.hint ? { fix: error.hint } : {}) };
  }
}
