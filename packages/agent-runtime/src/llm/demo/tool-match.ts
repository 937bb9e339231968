/**
 * How the demo LLM picks a tool and fills its parameters from the user's words: word overlap
 * for the choice, then explicit `name: value` mentions, quoted text, numbers and paths for the
 * values. Deterministic and small — plausible, not clever.
 */

export interface ToolCandidate {
  name: string;
  description: string;
  params: ParamSpec[];
}

export interface ParamSpec {
  name: string;
  /** JSON Schema / manifest type: string, number, integer, boolean, array, object, json, any. */
  type: string;
  required: boolean;
  description: string;
  enum?: readonly (string | number)[];
}

const STOPWORDS = new Set(
  "a an the to of and or is are be in on at for with from by it this that what which who how please me my i you your can could would will do does tool tools skill use using get".split(" "),
);

/** Lower-case word stems of a text, splitting camelCase, snake_case and punctuation. */
export function keywords(text: string): Set<string> {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9\u00c0-\uffff]+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return new Set(words.map(stem));
}

function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** The best tool for the message, or undefined when no tool shares a word with it. Ties go to the earlier tool. */
export function pickTool<T extends ToolCandidate>(tools: readonly T[], said: string): T | undefined {
  const message = canonicalWords(said);
  const words = keywords(message);
  const lower = message.toLowerCase();
  let best: T | undefined;
  let bestScore = 0;
  for (const tool of tools) {
    let score = lower.includes(tool.name.toLowerCase()) ? 10 : 0;
    for (const w of keywords(tool.name)) if (words.has(w)) score += 3;
    for (const w of keywords(tool.description)) if (words.has(w)) score += 1;
    for (const p of tool.params) if (words.has(stem(p.name.toLowerCase()))) score += 1;
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return best;
}

/** Everyday words for the operations tools name otherwise. */
const SYNONYMS: ReadonlyArray<[RegExp, string]> = [
  [/\b(times|product of)\b/gi, "multiply"],
  [/\b(plus|sum of)\b/gi, "add"],
  [/\bminus\b/gi, "subtract"],
  [/\bdivided by\b/gi, "divide"],
  [/\b(uppercase|capitals)\b/gi, "upper"],
  [/\blowercase\b/gi, "lower"],
];

/** The message with everyday words put as the tools name them (`6 times 7` → `6 multiply 7`). */
function canonicalWords(message: string): string {
  return SYNONYMS.reduce((text, [pattern, word]) => text.replace(pattern, word), message);
}

/** Parameter names that hold a path: their values are taken as one word. */
const NAMES_A_PLACE = /path|file|dir|folder/i;

/**
 * Values for the tool's parameters taken from the message. Required parameters always get a
 * value (the message itself when nothing better is found); optional ones only when the message
 * names them or an enum option of theirs.
 */
export function deriveArguments(params: readonly ParamSpec[], message: string): Record<string, unknown> {
  const quoted = [...message.matchAll(/"([^"]+)"|'([^']+)'|“([^”]+)”/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  const numbers = [...message.matchAll(/(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])/g)].map((m) => Number(m[0]));
  // Numbers given by name (`a: 6`) are not there for the taking by another parameter.
  for (const p of params) {
    const named = p.type === "number" || p.type === "integer" ? explicitValue(message, p.name, p.type) : undefined;
    const at = named === undefined ? -1 : numbers.indexOf(Number(named));
    if (at !== -1) numbers.splice(at, 1);
  }
  // `add 2 and 3`: with a required number, optional ones take the numbers left too.
  const numeric = params.some((p) => p.required && (p.type === "number" || p.type === "integer"));
  const words = canonicalWords(message);
  const paths = [...message.matchAll(/(?:@[a-z]+\/)?[\w.-]*[\w-]\/[\w./-]*|[\w-]+\.[a-z0-9]{1,5}\b/gi)].map((m) => m[0]);
  const used = { quoted: 0, numbers: 0, paths: 0 };
  const out: Record<string, unknown> = {};

  const ordered = [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
  for (const param of ordered) {
    const explicit = explicitValue(message, param.name, param.type);
    // `upper case: hello` names the option before the colon; what follows is not a value of `case`.
    if (explicit !== undefined && (!param.enum || param.enum.some((o) => String(o).toLowerCase() === explicit.toLowerCase()))) {
      out[param.name] = coerce(explicit, param.type);
      continue;
    }
    const option = param.enum?.find((o) => new RegExp(`\\b${escapeRegExp(String(o))}\\b`, "i").test(words));
    if (option !== undefined) {
      out[param.name] = option;
      continue;
    }
    const spareNumber = numeric && !param.enum && (param.type === "number" || param.type === "integer") && used.numbers < numbers.length;
    if (!param.required && !spareNumber) continue;
    if (param.enum && param.enum.length > 0) {
      out[param.name] = param.enum[0];
      continue;
    }
    switch (param.type) {
      case "number":
      case "integer": {
        const n = numbers[used.numbers++];
        out[param.name] = n === undefined ? 1 : param.type === "integer" ? Math.trunc(n) : n;
        break;
      }
      case "boolean":
        out[param.name] = !/\b(no|not|false|disable|off)\b/i.test(message);
        break;
      case "array":
        out[param.name] = quoted.length > 0 ? quoted.slice(used.quoted) : [];
        break;
      case "object":
      case "json":
        out[param.name] = {};
        break;
      default: {
        const pathLike = NAMES_A_PLACE.test(param.name) ? (paths[used.paths++] ?? namedPlace(message)) : undefined;
        out[param.name] = pathLike ?? quoted[used.quoted++] ?? afterInstruction(message, params) ?? message.trim().slice(0, 500);
      }
    }
  }
  return out;
}

/**
 * The text after a leading instruction and a colon (`upper case: hello` → `hello`), unless what
 * stands before the colon is one of the tool's parameter names (then it is that parameter's value).
 */
function afterInstruction(message: string, params: readonly ParamSpec[]): string | undefined {
  const m = /^\s*([^:\n"']{1,40}?)\s*:\s*(\S[\s\S]*?)\s*$/.exec(message);
  if (!m) return undefined;
  const lastWord = m[1]!.split(/\s+/).pop()!.toLowerCase();
  return params.some((p) => p.name.toLowerCase() === lastWord && !p.enum) ? undefined : m[2]!.slice(0, 500);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The word after "folder", "directory", "file"…: `list the folder src` → `src`. */
function namedPlace(message: string): string | undefined {
  return /\b(?:folder|directory|dir|file|path)\s+([^\s,;?!]+)/i.exec(message)?.[1];
}

/**
 * `name: value`, `name = value` or `name is value`, with snake_case names also matched as words.
 * Unquoted, a value is one word, but a text after `:` or `=` runs to the end of its clause
 * (`note: the library opens late` → the whole phrase), stopping before a next `, other: …`.
 */
function explicitValue(message: string, name: string, type: string): string | undefined {
  const phrase = type === "string" && !NAMES_A_PLACE.test(name);
  const unquoted = phrase ? String.raw`([^;\n]+?)(?=\s*(?:[,;]\s*[\w ]{1,40}?\s*[:=]|$))` : String.raw`([^\s,;]+)`;
  const spelled = [name, name.replace(/_/g, " ")].map(escapeRegExp);
  for (const n of spelled) {
    const m =
      new RegExp(String.raw`\b${n}\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|${unquoted})`, "i").exec(message) ?? new RegExp(String.raw`\b${n}\s+is\s+(?:"([^"]*)"|'([^']*)'|([^\s,;]+))`, "i").exec(message);
    if (m) return (m[1] ?? m[2] ?? m[3]).trim();
  }
  return undefined;
}

function coerce(value: string, type: string): unknown {
  switch (type) {
    case "number":
    case "integer": {
      const n = Number(value);
      if (!Number.isFinite(n)) return value;
      return type === "integer" ? Math.trunc(n) : n;
    }
    case "boolean":
      return /^(true|yes|1|on)$/i.test(value);
    case "array":
    case "object":
    case "json":
      try {
        return JSON.parse(value);
      } catch {
        return type === "array" ? [value] : value;
      }
    default:
      return value;
  }
}

/** Parameter specs from an OpenAI tool's JSON Schema `parameters`. */
export function paramsFromJsonSchema(schema: unknown): ParamSpec[] {
  if (typeof schema !== "object" || schema === null) return [];
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: unknown };
  if (typeof properties !== "object" || properties === null) return [];
  const requiredSet = new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []);
  return Object.entries(properties).map(([name, raw]) => {
    const prop = (typeof raw === "object" && raw !== null ? raw : {}) as { type?: unknown; description?: unknown; enum?: unknown };
    const type = Array.isArray(prop.type) ? String(prop.type.find((t) => t !== "null") ?? "string") : typeof prop.type === "string" ? prop.type : "any";
    const enumValues = Array.isArray(prop.enum) ? prop.enum.filter((v): v is string | number => typeof v === "string" || typeof v === "number") : undefined;
    return {
      name,
      type,
      required: requiredSet.has(name),
      description: typeof prop.description === "string" ? prop.description : "",
      ...(enumValues && enumValues.length > 0 ? { enum: enumValues } : {}),
    };
  });
}
