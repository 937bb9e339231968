import type { NodeDefinition } from "@weft/types";
import { NodeRegistry } from "./registry.ts";
import { skill } from "./core/skill.ts";
import { workflowInput } from "./core/workflow-input.ts";
import { workflowOutput } from "./core/workflow-output.ts";
import { constBoolean } from "./constants/const-boolean.ts";
import { constJson } from "./constants/const-json.ts";
import { constNumber } from "./constants/const-number.ts";
import { constText } from "./constants/const-text.ts";
import { regexMatch } from "./text/regex-match.ts";
import { regexReplace } from "./text/regex-replace.ts";
import { textJoin } from "./text/text-join.ts";
import { textSplit } from "./text/text-split.ts";
import { textTemplate } from "./text/text-template.ts";
import { textTransform } from "./text/text-transform.ts";
import { arrayFilter } from "./data/array-filter.ts";
import { arrayLength } from "./data/array-length.ts";
import { arrayPick } from "./data/array-pick.ts";
import { getPath } from "./data/get-path.ts";
import { jsonParse } from "./data/json-parse.ts";
import { jsonStringify } from "./data/json-stringify.ts";
import { mergeObjects } from "./data/merge-objects.ts";
import { setPath } from "./data/set-path.ts";
import { coalesce } from "./logic/coalesce.ts";
import { compare } from "./logic/compare.ts";
import { ifElse } from "./logic/if-else.ts";
import { switchNode } from "./logic/switch.ts";
import { math } from "./math/math.ts";
import { messageCreate } from "./messages/message-create.ts";
import { messagesMerge } from "./messages/messages-merge.ts";
import { delay } from "./util/delay.ts";
import { previewNode } from "./util/preview.ts";

/** Every node type Weft ships. To add one: import it above and append it here. */
export const builtinNodes: NodeDefinition[] = [
  workflowInput,
  workflowOutput,
  skill,
  constText,
  constNumber,
  constBoolean,
  constJson,
  textTemplate,
  textJoin,
  textSplit,
  regexMatch,
  regexReplace,
  textTransform,
  jsonParse,
  jsonStringify,
  getPath,
  setPath,
  mergeObjects,
  arrayLength,
  arrayPick,
  arrayFilter,
  ifElse,
  switchNode,
  compare,
  coalesce,
  math,
  messageCreate,
  messagesMerge,
  delay,
  previewNode,
];

/** A registry holding the built-in nodes plus `extra` (a type defined twice is refused). */
export function createBuiltinRegistry(extra: NodeDefinition[] = []): NodeRegistry {
  return new NodeRegistry().registerAll(builtinNodes).registerAll(extra);
}
