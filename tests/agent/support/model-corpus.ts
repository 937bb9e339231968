// tests/ is not a workspace package: the test server is imported by path.
import type { ScriptedTurn } from "../../../packages/agent-runtime/src/llm/testing/scripted-llm-server.ts";

/**
 * How real models misbehave, as conversations: each model reply exactly as a provider would stream
 * it, what the loop must tell the model next, and how the run must end. Replayed through the real
 * `weft agent` process by model-corpus.test.ts.
 */
export interface CorpusCase {
  name: string;
  /** text-helper speaks `<ACTION>` XML, calculator native tool calls. */
  agent: "text-helper" | "calculator";
  message: string;
  /** The model's replies, in order. */
  turns: ScriptedTurn[];
  /**
   * For each request after the first: what the model is told last (the newest message, of this
   * role, containing every piece), and optionally exactly what its previous reply reads as in the
   * conversation.
   */
  told: Array<{ role: "user" | "tool"; contains: string[]; lacks?: string[]; previousReply?: string }>;
  ends: { status: string; exit: number; text?: string; stderr?: string[] };
}

/** A reply streamed in small pieces (tags get split across chunks, as with real tokens). */
export function reply(text: string, options: { finishReason?: string; reasoning?: string } = {}): ScriptedTurn {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
  return { kind: "text", chunks, ...(options.finishReason ? { finishReason: options.finishReason } : {}), ...(options.reasoning ? { reasoning: [options.reasoning] } : {}) };
}

export function toolCall(name: string, args: string, text?: string): ScriptedTurn {
  return { kind: "tool_calls", calls: [{ name, arguments: args }], ...(text ? { text: [text] } : {}) };
}

const MULTIPLY = "<ACTION>\n  <core_math>\n    <a>6</a>\n    <b>7</b>\n    <op>multiply</op>\n  </core_math>\n</ACTION>";
const RESULT_42 = 'Observation: Tool `core_math` executed successfully. Result: {"result":42}';
const ANSWER = "6 × 7 = 42.";
const IF_ANSWER = "if you meant to answer, answer in plain text.";

export const XML_CORPUS: CorpusCase[] = [
  {
    name: "an <ACTION> fenced as ```xml is not run; the model is told, resends it bare, and it runs",
    agent: "text-helper",
    message: "What is 6 times 7?",
    turns: [reply(`I'll use the math tool.\n\n\`\`\`xml\n${MULTIPLY}\n\`\`\``), reply(MULTIPLY), reply(ANSWER)],
    told: [
      { role: "user", contains: ["Observation: Error (QUOTED_ACTION) - Your <ACTION> was inside a Markdown code block (line 3), so it was not run.", "without the ``` fence", IF_ANSWER] },
      { role: "user", contains: [RESULT_42] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "an <ACTION> in a fence without a language gets the same advice; a plain answer after it ends the run",
    agent: "text-helper",
    message: "Multiply 6 by 7",
    turns: [reply(`\`\`\`\n${MULTIPLY}\n\`\`\``), reply("I cannot use tools right now; 6 × 7 is 42.")],
    told: [{ role: "user", contains: ["QUOTED_ACTION", "inside a Markdown code block (line 1)"] }],
    ends: { status: "completed", exit: 0, text: "I cannot use tools right now; 6 × 7 is 42." },
  },
  {
    name: "a model that sends the same fenced example again after being told meant it as its answer",
    agent: "text-helper",
    message: "Show me how a call to the math tool looks",
    turns: [reply(`A call looks like this:\n\`\`\`xml\n${MULTIPLY}\n\`\`\``), reply(`A call looks like this:\n\`\`\`xml\n${MULTIPLY}\n\`\`\``)],
    told: [{ role: "user", contains: ["QUOTED_ACTION", IF_ANSWER] }],
    ends: { status: "completed", exit: 0, text: `A call looks like this:\n\`\`\`xml\n${MULTIPLY}\n\`\`\`` },
  },
  {
    name: "prose around an action: the text before it stays, the text after it is dropped and the model told so",
    agent: "text-helper",
    message: "6 times 7, please",
    turns: [reply(`Sure, let me compute that.\n${MULTIPLY}\nI will wait for the result.`), reply(ANSWER)],
    told: [
      {
        role: "user",
        contains: [RESULT_42, "Note: the text you wrote after </ACTION> was dropped from the conversation"],
        lacks: ["I will wait for the result."],
        previousReply: `Sure, let me compute that.\n${MULTIPLY}`,
      },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "an invented observation after </ACTION> never reaches the model; only the real result does",
    agent: "text-helper",
    message: "What is 6 times 7?",
    turns: [reply(`${MULTIPLY}\nObservation: Tool \`core_math\` executed successfully. Result: {"result":99}\nSo the answer is 99.`), reply(ANSWER)],
    told: [{ role: "user", contains: [RESULT_42, "was dropped"], lacks: ['{"result":99}', "answer is 99"], previousReply: MULTIPLY }],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "reasoning in its own channel and an action in the text: the action runs",
    agent: "text-helper",
    message: "6*7?",
    turns: [reply(MULTIPLY, { reasoning: "The user wants a product. I should call core_math with op multiply." }), reply(ANSWER)],
    told: [{ role: "user", contains: [RESULT_42] }],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "an action written only inside <think> is not run; the model is told to write it after its reasoning",
    agent: "text-helper",
    message: "6*7?",
    turns: [reply(`<think>I could call\n${MULTIPLY}\n</think>`), reply(MULTIPLY), reply(ANSWER)],
    told: [
      { role: "user", contains: ["QUOTED_ACTION", "inside your reasoning (a <think> block)", "after your reasoning"] },
      { role: "user", contains: [RESULT_42] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "an action considered inside <think>, followed by an answer, is an answer",
    agent: "text-helper",
    message: "What is 6 times 7?",
    turns: [reply(`<think>I could call\n${MULTIPLY}\nbut I know it.</think>\n${ANSWER}`)],
    told: [],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "the same refused action twice gets a firmer observation, and the run goes on",
    agent: "text-helper",
    message: "6 times 7",
    turns: [reply("<ACTION><core_math><b>7</b></core_math></ACTION>"), reply("<ACTION><core_math><b>7</b></core_math></ACTION>"), reply(ANSWER)],
    told: [
      { role: "user", contains: ["Observation: Error (INVALID_PARAMS)", "<a>", "required parameter is missing"], lacks: ["STOP:"] },
      { role: "user", contains: ["Observation: Error (INVALID_PARAMS)", "STOP: this is attempt 2 of exactly this action"] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "wrong-case tool and parameter names are repaired with a note, and the call runs",
    agent: "text-helper",
    message: "6 times 7",
    turns: [reply("<ACTION>\n  <Core_Math>\n    <A>6</A>\n    <B>7</B>\n    <Op>multiply</Op>\n  </Core_Math>\n</ACTION>"), reply(ANSWER)],
    told: [{ role: "user", contains: [RESULT_42, "The parameter <A> was matched to <a> ignoring letter case; write <a> exactly.", "<Op> was matched to <op>"] }],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "a call written as JSON is not run; the model gets it back as an <ACTION> block",
    agent: "text-helper",
    message: "6 times 7",
    turns: [reply('```json\n{"name": "core_math", "arguments": {"a": 6, "b": 7, "op": "multiply"}}\n```'), reply(MULTIPLY), reply(ANSWER)],
    told: [
      { role: "user", contains: ["Observation: Error (CALL_AS_TEXT) - You wrote the call to `core_math` as JSON, so it was not run", "<core_math>", "<a>6</a>", "<op>multiply</op>"] },
      { role: "user", contains: [RESULT_42] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "an action the user pasted, quoted back in inline code, is not run; repeated, it is the answer",
    agent: "text-helper",
    message: "What does this do? <ACTION><core_math><a>1</a><b>2</b></core_math></ACTION>",
    turns: [
      reply("It calls the math tool: `<ACTION><core_math><a>1</a><b>2</b></core_math></ACTION>` adds 1 and 2."),
      reply("It calls the math tool: `<ACTION><core_math><a>1</a><b>2</b></core_math></ACTION>` adds 1 and 2."),
    ],
    told: [{ role: "user", contains: ["QUOTED_ACTION", "inside inline code (backticks)", "without the backticks"] }],
    ends: { status: "completed", exit: 0, text: "It calls the math tool: `<ACTION><core_math><a>1</a><b>2</b></core_math></ACTION>` adds 1 and 2." },
  },
  {
    name: "a reply cut off at the output limit is continued, and the pieces make the answer",
    agent: "text-helper",
    message: "Explain 6 times 7",
    turns: [reply("Six times seven is forty", { finishReason: "length" }), reply("-two, because 6 × 7 = 42.")],
    told: [{ role: "user", contains: ["Observation: Your reply was cut off at the output limit (finish_reason: length)", "Continue exactly where it stopped"] }],
    ends: { status: "completed", exit: 0, text: "Six times seven is forty-two, because 6 × 7 = 42." },
  },
  {
    name: "a reply that stays cut off ends the run as cut off, with what there is",
    agent: "text-helper",
    message: "Write a long essay",
    turns: [reply("Part one ", { finishReason: "length" }), reply("part two ", { finishReason: "length" }), reply("part three", { finishReason: "length" })],
    told: [
      { role: "user", contains: ["cut off at the output limit"] },
      { role: "user", contains: ["cut off at the output limit"] },
    ],
    ends: { status: "cut_off", exit: 1, text: "Part one part two part three", stderr: ["the answer was cut off at the model's output limit", "Fix: Raise the output limit"] },
  },
  {
    name: "a truncated <ACTION> is not run and the model is told to write it complete",
    agent: "text-helper",
    message: "6 times 7",
    turns: [reply("<ACTION>\n  <core_math>\n    <a>6</a>\n    <b>7", { finishReason: "length" }), reply(MULTIPLY), reply(ANSWER)],
    told: [
      { role: "user", contains: ["Observation: Error (TRUNCATED)", "never closed with </ACTION>"] },
      { role: "user", contains: [RESULT_42] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
];

export const NATIVE_CORPUS: CorpusCase[] = [
  {
    name: "a native agent that writes an <ACTION> block as text is told to make the function call",
    agent: "calculator",
    message: "What is 6 times 7?",
    turns: [reply(`Let me compute.\n${MULTIPLY}`), toolCall("core_math", '{"a":6,"b":7,"op":"multiply"}'), reply(ANSWER)],
    told: [
      {
        role: "user",
        contains: [
          "Observation: Error (CALL_AS_TEXT) - You wrote an <ACTION> block as text, so nothing was run",
          'Call the function `core_math` with the arguments {"a":6,"b":7,"op":"multiply"} instead',
        ],
      },
      { role: "tool", contains: ['{"result":42}'] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "a native agent that writes its call as JSON text is told the same",
    agent: "calculator",
    message: "6 times 7",
    turns: [reply('{"name": "core_math", "arguments": "{\\"a\\": 6, \\"b\\": 7, \\"op\\": \\"multiply\\"}"}'), toolCall("core_math", '{"a":6,"b":7,"op":"multiply"}'), reply(ANSWER)],
    told: [
      { role: "user", contains: ["CALL_AS_TEXT", "the call to `core_math` as JSON text", "through function calls (tool_calls)"] },
      { role: "tool", contains: ['{"result":42}'] },
    ],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "wrong-case argument names of a native call are repaired with a note",
    agent: "calculator",
    message: "6 times 7",
    turns: [toolCall("core_math", '{"A":6,"B":7,"Op":"multiply"}'), reply(ANSWER)],
    told: [{ role: "tool", contains: ['{"result":42}', "The argument `A` was matched to `a` ignoring letter case"] }],
    ends: { status: "completed", exit: 0, text: ANSWER },
  },
  {
    name: "a native reply cut off at the output limit is continued",
    agent: "calculator",
    message: "Explain 6 times 7",
    turns: [reply("The product is ", { finishReason: "length" }), reply("42.")],
    told: [{ role: "user", contains: ["cut off at the output limit (finish_reason: length)"] }],
    ends: { status: "completed", exit: 0, text: "The product is 42." },
  },
  {
    name: "a bad key reported inside the stream stops the run with one fix, not a retry",
    agent: "calculator",
    message: "6 times 7",
    turns: [
      { kind: "stream_error", chunks: [], message: "Incorrect API key provided: sk-te***st.", code: "invalid_api_key", type: "invalid_request_error" },
      { kind: "stream_error", chunks: [], message: "Incorrect API key provided: sk-te***st.", code: "invalid_api_key", type: "invalid_request_error" },
    ],
    told: [],
    ends: { status: "failed", exit: 1, stderr: ["weft: The LLM call failed (AUTH): The provider reported an error mid-stream: Incorrect API key provided", "Fix: set WEFT_LLM_API_KEY"] },
  },
];
