import { ref } from "vue";
import { api } from "../api/client.ts";
import type { ApiError } from "../api/errors.ts";
import { LiveSocket, type SocketStatus } from "./live-socket.ts";

const status = ref<SocketStatus>("closed");
let socket: LiveSocket | null = null;

/**
 * The page's one connection to `/ws` (same host as the page), resuming every stream from its last
 * event after a drop; `status` says whether live updates flow right now.
 */
export function useLiveSocket(onError: (error: ApiError) => void) {
  socket ??= new LiveSocket({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
    fetchEvents: (streamId, after) => api.runEvents(streamId, after),
    onStatus: (s) => (status.value = s),
    onError,
  });
  return { socket, status };
}
