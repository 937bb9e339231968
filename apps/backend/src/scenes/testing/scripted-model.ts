import { observationsSinceUser, serveModel, streamedAction, streamedReply, type WireMessage } from "../../../../../bench/support/instant-llm.ts";

/** A model server that answers each request with `answer(messages, nth)`; with `hangOn`, that request waits a minute (its process is killed meanwhile). */
export function scriptedModel(answer: (messages: WireMessage[], nth: number) => string, hangOn?: number) {
  let requests = 0;
  const server = serveModel(async (messages) => {
    const nth = ++requests;
    if (nth === hangOn) await Bun.sleep(60_000);
    return answer(messages, nth);
  });
  return { ...server, requests: () => requests };
}

/**
 * An agent's turn decided by where it is, as a real model would: no observation since the message →
 * count a visit in the world (`visits.r<nth>`); one → announce it (`town.counted`); then answer.
 * A deliberation redone from scratch after a crash would count again: the write crash tests must not see twice.
 */
export function countVisitThenAnnounce(messages: WireMessage[], nth: number): string {
  const observations = observationsSinceUser(messages);
  return observations === 0
    ? streamedAction("scene_world_set", { path: `visits.r${nth}`, value: "1" })
    : observations === 1
      ? streamedAction("scene_publish_event", { topic: "town.counted", payload: "{}" })
      : streamedReply("Counted.");
}
