import { isJSONRPCErrorResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A JSON-RPC error as the wire should carry it: the message alone. `McpError` writes "MCP error
 * <code>: " into its own message, the SDK's server sends that message, and the client's McpError adds
 * the prefix again; the code is in `error.code` already.
 */
export function withoutDoubledPrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!isJSONRPCErrorResponse(message)) return message;
  const prefix = `MCP error ${message.error.code}: `;
  if (!message.error.message.startsWith(prefix)) return message;
  return { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } };
}
