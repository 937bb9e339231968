/** Categories whose name is an acronym, written as one. */
const ACRONYMS: Record<string, string> = { llm: "LLM", http: "HTTP", json: "JSON", mcp: "MCP", api: "API", a2a: "A2A" };

/** How the palette titles a node category: "llm" → "LLM", "http" → "HTTP", "data" → "Data". */
export function categoryLabel(category: string): string {
  return ACRONYMS[category.toLowerCase()] ?? category.charAt(0).toUpperCase() + category.slice(1);
}
