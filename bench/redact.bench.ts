/**
 * Redaction cost: `SecretRedactor.value` over a run output of 1 MB and 8 MB of JSON (text and numbers,
 * no secret in it: the common case) with 20 secrets known, each with its encoded forms (percent-encoded,
 * base64 at three offsets; see packages/types/src/secret-forms.ts). Prints one JSON line per size: the
 * median of 9 timed calls after 3 warm-up calls, and how many strings the redactor looks for.
 * Run: `bun bench/redact.bench.ts`.
 */
import { SecretRedactor } from "../packages/types/src/index.ts";

const SECRETS = 20;
const WARMUP = 3;
const RUNS = 9;

const redactor = new SecretRedactor();
for (let i = 0; i < SECRETS; i++) redactor.set(`credential:c${i}`, `credential c${i}`, [`sk-bench-${i}-Secret/+=?&-0123456789abcdef`]);
const entries = (redactor as unknown as { entries: unknown[] }).entries.length;

function output(bytes: number): Record<string, unknown> {
  const rows: { id: number; text: string; score: number }[] = [];
  let size = 0;
  for (let id = 0; size < bytes; id++) {
    const text = `row ${id}: the weft crosses the warp ${id % 97} times, pattern ${(id * 7919) % 1000}`;
    rows.push({ id, text, score: (id * 31) % 1000 });
    size += text.length + 30;
  }
  return { rows };
}

for (const megabytes of [1, 8]) {
  const value = output(megabytes * 1024 * 1024);
  for (let i = 0; i < WARMUP; i++) redactor.value(value);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    redactor.value(value);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ bench: "redact", megabytes, secrets: SECRETS, searchedStrings: entries, medianMs: Number(times[Math.floor(RUNS / 2)]!.toFixed(2)) }));
}
