import { beforeEach, describe, expect, it } from "vitest";
import { freshPinia } from "../../shared/testing/fresh-pinia.ts";
import { reportSignedOut } from "../../shared/api/session.ts";
import { useSessionStore } from "./session-store.ts";

beforeEach(() => void freshPinia());

describe("session store", () => {
  it("asks for sign-in once any client reports a 401, and stops listening when told to", () => {
    const session = useSessionStore();
    const stop = session.watchSignOut();
    expect(session.signInRequired).toBe(false);
    reportSignedOut();
    expect(session.signInRequired).toBe(true);
    stop();
    freshPinia();
    const next = useSessionStore();
    reportSignedOut();
    expect(next.signInRequired).toBe(false);
  });
});
