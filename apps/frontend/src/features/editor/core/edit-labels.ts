import type { NodeSpec } from "@weft/types";

/** "itemInput" → "item input", "max_items" → "max items": a field id read as words when it has no label. */
export function idInWords(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
}

/** The field's own words inside a sentence: "Port type" → "port type", but "LLM profile" and "URL" keep their capitals. */
function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0].toLowerCase() + label.slice(1) : label;
}

/**
 * The undo history's entry for a changed input or setting of a node (named as the editor names it,
 * `useNodeTitle`), in the words the node shows: "Changed the port type of Workflow input", never the
 * field's id ("Edit portType").
 */
export function fieldEditLabel(title: string, spec: NodeSpec | undefined, kind: "inputs" | "config", id: string): string {
  const field = kind === "config" ? spec?.config.find((f) => f.id === id) : spec?.inputs.find((p) => p.id === id);
  return `Changed the ${field?.label ? inSentence(field.label) : idInWords(id)} of ${title}`;
}
