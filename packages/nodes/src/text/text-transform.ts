import { defineNode } from "../define-node.ts";

const TRIMS = ["none", "both", "start", "end"] as const;
const CASES = ["keep", "upper", "lower", "title", "sentence"] as const;
type Trim = (typeof TRIMS)[number];
type Case = (typeof CASES)[number];

function trim(text: string, mode: Trim): string {
  switch (mode) {
    case "none":
      return text;
    case "both":
      return text.trim();
    case "start":
      return text.trimStart();
    case "end":
      return text.trimEnd();
    default: {
      const never: never = mode;
      return never;
    }
  }
}

function changeCase(text: string, mode: Case): string {
  switch (mode) {
    case "keep":
      return text;
    case "upper":
      return text.toUpperCase();
    case "lower":
      return text.toLowerCase();
    case "title":
      return text.toLowerCase().replace(/(^|[\s\-_/(["])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
    case "sentence": {
      const lower = text.toLowerCase();
      return lower.replace(/(^\s*|[.!?]\s+)(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
    }
    default: {
      const never: never = mode;
      return never;
    }
  }
}

export const textTransform = defineNode(
  {
    type: "core:text-transform",
    title: "Trim / change case",
    description: "Trims white space from a text and changes its case (UPPER, lower, Title Case or Sentence case).",
    category: "text",
    inputs: [{ id: "text", type: "string", required: true, label: "Text", description: "The text to transform." }],
    outputs: [{ id: "text", type: "string", label: "Text", description: "The transformed text." }],
    config: [
      { id: "trim", kind: "select", options: [...TRIMS], default: "both", label: "Trim", description: "Which ends to strip of white space." },
      { id: "case", kind: "select", options: [...CASES], default: "keep", label: "Case", description: "How to change letter case." },
    ],
    flags: { idempotent: true },
  },
  (inputs, ctx) => ({ text: changeCase(trim(inputs.text as string, ctx.config.trim as Trim), ctx.config.case as Case) }),
);
