import { createTwoFilesPatch } from "diff";
import { stableJson } from "@weft/types";

/** Pretty JSON with sorted keys: the text both sides of a unified diff are made of. */
export function prettyJson(value: unknown): string {
  return value === null || value === undefined ? "" : JSON.stringify(JSON.parse(stableJson(value)), null, 2) + "\n";
}

/** A unified diff (`---`/`+++`/`@@` hunks) of two texts, labelled with the object's name. */
export function unifiedDiff(label: string, before: string, after: string): string {
  return createTwoFilesPatch(`${label} (stored)`, `${label} (staged)`, before, after, undefined, undefined, { context: 3 });
}
