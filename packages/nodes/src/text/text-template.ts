import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { describeValue, isPlainObject } from "../support/describe-value.ts";
import { getAtPath, parsePath } from "../support/paths.ts";

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export const textTemplate = defineNode(
  {
    type: "core:text-template",
    title: "Text template",
    description:
      "Fills a text template: each {{name}} placeholder is replaced by that key of `vars` (dotted paths such as {{user.name}} work), and {{0}}, {{1}}, … by the values connected to `values`, in order. Objects and arrays are written as JSON.",
    category: "text",
    inputs: [
      { id: "vars", type: "json", label: "Variables", description: 'An object whose keys are the placeholder names, e.g. {"topic": "weaving"}.' },
      { id: "values", type: "any", multi: true, label: "Values", description: "Positional values, used as {{0}}, {{1}}, … in the order they are connected." },
      {
        id: "template",
        type: "string",
        multiline: true,
        label: "Template",
        description: "The template text; when given, it replaces the template set in the node's settings.",
      },
    ],
    outputs: [{ id: "text", type: "string", label: "Text", description: "The filled template." }],
    config: [
      { id: "template", kind: "multiline", default: "", label: "Template", description: "Text with {{name}} placeholders." },
      {
        id: "onMissing",
        kind: "select",
        options: ["error", "blank", "keep"],
        default: "error",
        label: "Missing variable",
        description: "error: fail naming the variable; blank: insert nothing; keep: leave the {{placeholder}} as written.",
      },
    ],
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const template = (inputs.template as string | undefined) ?? (ctx.config.template as string);
    const vars = inputs.vars ?? {};
    if (!isPlainObject(vars)) {
      throw new NodeFailure(
        "INVALID_INPUT",
        `Input "vars" of core:text-template must be an object of named values, got ${describeValue(vars)}. To insert a single value, connect it to "values" and write {{0}}.`,
        { port: "vars" },
      );
    }
    const values = inputs.values as unknown[];
    const missing: string[] = [];
    const text = template.replace(PLACEHOLDER, (whole, name: string) => {
      const found = /^\d+$/.test(name) ? { found: Number(name) < values.length && values[Number(name)] !== undefined, value: values[Number(name)] } : getAtPath(vars, parsePath(name));
      if (found.found) return render(found.value);
      missing.push(name);
      return ctx.config.onMissing === "keep" ? whole : "";
    });
    if (missing.length > 0 && ctx.config.onMissing === "error") {
      const known = [...Object.keys(vars), ...values.map((_, i) => String(i))];
      throw new NodeFailure(
        "MISSING_VARIABLE",
        `Template variable${missing.length > 1 ? "s" : ""} ${missing.map((m) => `{{${m}}}`).join(", ")} ha${missing.length > 1 ? "ve" : "s"} no value. ` +
          `Known: ${known.length ? known.join(", ") : "none"}. Add ${missing.length > 1 ? "them" : "it"} to "vars" (or connect "values"), or set "Missing variable" to blank.`,
        { missing, known },
      );
    }
    return { text };
  },
);
