import { describeSchemaErrors, schemaValidator } from "@weft/nodes";
import { jsonEqual, messageOf, type EvalAssertion, type EvalAssertionResult, type EvalVerdict } from "@weft/types";

/** What a case's run produced, as the assertions read it. */
export interface CaseActual {
  outputs: Record<string, unknown>;
  /** Node executions the run recorded. */
  steps: number;
  tokens: number;
  /** Null when a call's price is unknown. */
  costUsd: number | null;
}

/** Judges an answer against a rubric with an LLM profile (eval-judge.ts). */
export type Judge = (rubric: string, answer: string, profileId: string | undefined) => Promise<EvalVerdict>;

/** The value an assertion checks: one output by name, or all outputs. */
function valueOf(actual: CaseActual, output: string | undefined): unknown {
  return output === undefined ? actual.outputs : actual.outputs[output];
}

const asText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? "undefined"));
const where = (output: string | undefined) => (output === undefined ? "the outputs" : `output "${output}"`);

/** Checks one assertion; never throws (a broken schema or pattern fails the assertion with the reason). */
export async function checkAssertion(assertion: EvalAssertion, actual: CaseActual, judge: Judge): Promise<EvalAssertionResult> {
  const result = (pass: boolean, message: string, expected?: unknown, got?: unknown): EvalAssertionResult => ({
    kind: assertion.kind,
    pass,
    message,
    ...(expected !== undefined ? { expected } : {}),
    ...(got !== undefined ? { actual: got } : {}),
  });
  switch (assertion.kind) {
    case "equals": {
      const value = valueOf(actual, assertion.output);
      const pass = jsonEqual(value, assertion.expected);
      return result(pass, pass ? `${where(assertion.output)} equals the expected value` : `${where(assertion.output)} differs from the expected value`, assertion.expected, value ?? null);
    }
    case "contains": {
      const value = asText(valueOf(actual, assertion.output));
      const pass = assertion.caseSensitive === true ? value.includes(assertion.text) : value.toLowerCase().includes(assertion.text.toLowerCase());
      return result(pass, `${where(assertion.output)} ${pass ? "contains" : "does not contain"} ${JSON.stringify(assertion.text)}`, assertion.text, value);
    }
    case "regex": {
      const value = asText(valueOf(actual, assertion.output));
      let pattern: RegExp;
      try {
        pattern = new RegExp(assertion.pattern, assertion.flags);
      } catch (error) {
        return result(false, `the pattern /${assertion.pattern}/ is not a valid regular expression: ${messageOf(error)}; fix it in the case`, assertion.pattern, value);
      }
      const pass = pattern.test(value);
      return result(pass, `${where(assertion.output)} ${pass ? "matches" : "does not match"} /${assertion.pattern}/${assertion.flags ?? ""}`, `/${assertion.pattern}/${assertion.flags ?? ""}`, value);
    }
    case "json-schema": {
      const value = valueOf(actual, assertion.output);
      try {
        const validate = schemaValidator(assertion.schema, "schema");
        const pass = validate(value) === true;
        return result(
          pass,
          pass ? `${where(assertion.output)} is valid against the schema` : `${where(assertion.output)} is not valid against the schema: ${describeSchemaErrors(validate)}`,
          assertion.schema,
          value ?? null,
        );
      } catch (error) {
        return result(false, messageOf(error), assertion.schema, value ?? null);
      }
    }
    case "number": {
      const value = valueOf(actual, assertion.output);
      const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
      if (!Number.isFinite(n)) return result(false, `${where(assertion.output)} is not a number`, assertion.expected, value ?? null);
      const pass = Math.abs(n - assertion.expected) <= assertion.tolerance;
      return result(pass, `${where(assertion.output)} is ${n}, ${pass ? "within" : "outside"} ${assertion.expected} ± ${assertion.tolerance}`, assertion.expected, n);
    }
    case "steps": {
      const pass = actual.steps <= assertion.max;
      return result(pass, `${actual.steps} node execution(s), ${pass ? "within" : "over"} the limit of ${assertion.max}`, assertion.max, actual.steps);
    }
    case "cost": {
      const overTokens = assertion.maxTokens !== undefined && actual.tokens > assertion.maxTokens;
      const unknownCost = assertion.maxCostUsd !== undefined && actual.costUsd === null;
      const overCost = assertion.maxCostUsd !== undefined && actual.costUsd !== null && actual.costUsd > assertion.maxCostUsd;
      const pass = !overTokens && !overCost && !unknownCost;
      const parts = [
        `${actual.tokens} token(s)${assertion.maxTokens !== undefined ? ` (limit ${assertion.maxTokens})` : ""}`,
        `cost ${actual.costUsd === null ? "unknown (a call's price is not set on its LLM profile)" : `$${actual.costUsd}`}${assertion.maxCostUsd !== undefined ? ` (limit $${assertion.maxCostUsd})` : ""}`,
      ];
      return result(pass, parts.join(", "), { maxTokens: assertion.maxTokens, maxCostUsd: assertion.maxCostUsd }, { tokens: actual.tokens, costUsd: actual.costUsd });
    }
    case "judge": {
      const answer = asText(valueOf(actual, assertion.output));
      try {
        const verdict = await judge(assertion.rubric, answer, assertion.profileId);
        return result(verdict.pass, `judge: ${verdict.reason}`, assertion.rubric, answer);
      } catch (error) {
        return result(false, `the judge could not decide: ${messageOf(error)}`, assertion.rubric, answer);
      }
    }
  }
}
