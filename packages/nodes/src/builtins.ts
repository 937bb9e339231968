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
import { arrayFilter } from "./json/array-filter.ts";
import { arrayLength } from "./json/array-length.ts";
import { arrayPick } from "./json/array-pick.ts";
import { getPath } from "./json/get-path.ts";
import { jsonParse } from "./json/json-parse.ts";
import { jsonStringify } from "./json/json-stringify.ts";
import { mergeObjects } from "./json/merge-objects.ts";
import { setPath } from "./json/set-path.ts";
import { coalesce } from "./logic/coalesce.ts";
import { compare } from "./logic/compare.ts";
import { ifElse } from "./logic/if-else.ts";
import { switchNode } from "./logic/switch.ts";
import { math } from "./math/math.ts";
import { messageCreate } from "./messages/message-create.ts";
import { messagesMerge } from "./messages/messages-merge.ts";
import { delay } from "./util/delay.ts";
import { previewNode } from "./util/preview.ts";
import { sceneNodes } from "./scene/index.ts";
import { llmNodes } from "./llm/index.ts";
import { fsApplyPatch } from "./fs/apply-patch.ts";
import { fsList } from "./fs/list.ts";
import { fsRead } from "./fs/read.ts";
import { fsSearch } from "./fs/search.ts";
import { fsWrite } from "./fs/write.ts";
import { shellExec } from "./shell/exec.ts";
import { httpRequest } from "./http/request.ts";
import { a2aCallNode } from "./a2a/call.ts";
import { codeJavascript } from "./code/javascript.ts";
import { coreMap } from "./core/map.ts";
import { coreApproval } from "./core/approval.ts";
import { webhookTrigger } from "./trigger/webhook.ts";
import { scheduleTrigger } from "./trigger/schedule.ts";

/** Every node type Weft ships. To add one: import it above and append it here. */
export const builtinNodes: NodeDefinition[] = [
  workflowInput,
  workflowOutput,
  skill,
  coreMap,
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
  ...sceneNodes,
  ...llmNodes,
  fsRead,
  fsSearch,
  fsList,
  fsWrite,
  fsApplyPatch,
  shellExec,
  httpRequest,
  codeJavascript,
  webhookTrigger,
  scheduleTrigger,
  coreApproval,
  a2aCallNode,
];

/** A registry holding the built-in nodes plus `extra` (a type defined twice is refused). */
export function createBuiltinRegistry(extra: NodeDefinition[] = []): NodeRegistry {
  return new NodeRegistry().registerAll(builtinNodes).registerAll(extra);
}
