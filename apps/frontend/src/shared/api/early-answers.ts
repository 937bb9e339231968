/** Path → the parsed JSON of a 200, or undefined for any other answer (early-start.js). */
type EarlyAnswers = Record<string, Promise<unknown> | undefined>;
const holder = globalThis as { weftEarlyAnswers?: EarlyAnswers };

/**
 * The answer to GET `path` that `early-start.js` (index.html's first script) asked for and parsed while the editor's
 * scripts loaded, once: the first call of it takes it. Undefined when there is none (a test, a later call).
 */
export function takeEarlyAnswer(path: string): Promise<unknown> | undefined {
  const answers = holder.weftEarlyAnswers;
  const answer = answers?.[path];
  if (answers && answer) delete answers[path];
  return answer;
}

/** Drops the answers the start did not take (a remembered tab fetched another way), so they are not kept for good. */
export function forgetEarlyAnswers(): void {
  delete holder.weftEarlyAnswers;
}
