import type { NodeDefinition } from "@weft/types";
import { llmChat } from "./chat.ts";
import { llmContextWindow } from "./context-window.ts";
import { llmToolResult } from "./tool-result.ts";
import { llmStructured } from "./structured.ts";

export { llmChat, llmContextWindow, llmToolResult, llmStructured };

/** The `llm:` node types. */
export const llmNodes: NodeDefinition[] = [llmChat, llmContextWindow, llmToolResult, llmStructured];
