import { ref } from "vue";
import { api } from "../api/client.ts";
import type { ApiError } from "../api/errors.ts";
import { LiveSocket, type SocketStatus } from "./live-socket.ts";

const status = ref<SocketStatus>("closed");
let socket: LiveSocket | null = null;

/**
 * The page's one connection to `/ws` (same host as the page), resuming every stream from its last
 * event after a drop; `status` says whether live updates flow right now, `reconnectNow` skips the wait
 * before the next attempt (the banners' "Reconnect now").
 */
export function useLiveSocket(onError: (error: ApiError) => void) {
  if (!socket) {
    const live = new LiveSocket({
      url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
      fetchEvents: (streamId, after) => api.runEvents(streamId, after),
      onStatus: (s) => (status.value = s),
      onError,
    });
    // Back online, or the tab shown again (a laptop waking up): no reason to sit out the rest of a backoff.
    window.addEventListener("online", () => live.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") live.reconnectNow();
    });
    socket = live;
  }
  const live = socket;
  return { socket: live, status, reconnectNow: () => live.reconnectNow() };
}
