/**
 * A new run's id: a UUIDv7 (RFC 9562), which starts with its creation time in milliseconds. Stores key
 * a run's rows and events by it, so a new run's rows land at the end of those indexes instead of at a
 * random page (an agent step starts two runs; random keys dirtied a page apiece in every commit).
 */
export const newRunId = (): string => Bun.randomUUIDv7();
