/** Bun's WebSocket, which takes headers as a script sends them; the DOM lib's declaration hides that overload. */
export const BunWebSocket = WebSocket as unknown as new (url: string | URL, options: Bun.WebSocketOptions) => WebSocket;
