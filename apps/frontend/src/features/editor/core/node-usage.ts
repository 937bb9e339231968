import { z } from "zod";
import { readLocal, writeLocal } from "../../../shared/lib/local-store.ts";

/** How often this browser's user added each node type: quick-add offers the familiar ones first. */
const KEY = "weft.nodeUsage";
const Usage = z.record(z.string(), z.number());

export const usesOf = (): ((type: string) => number) => {
  const counts = readLocal(KEY, Usage) ?? {};
  return (type) => counts[type] ?? 0;
};

export function recordUse(type: string): void {
  const counts = readLocal(KEY, Usage) ?? {};
  counts[type] = (counts[type] ?? 0) + 1;
  writeLocal(KEY, counts);
}
