/** A count with its noun, the noun made plural with an "s" unless the count is one: "1 tool", "3 tools". */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
