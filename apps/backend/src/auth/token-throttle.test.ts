import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

// Wrong tokens are counted per client address (here every request comes from 127.0.0.1): each case has its own server.
const LIMIT = 20;

function signInWithToken(t: TestServer, token: string) {
  return fetch(`${t.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
}

describe("token guessing is throttled per client address", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.stop());

  it("after the allowed wrong tokens on the sign-in form, even the right token gets 429 with Retry-After and no session cookie", async () => {
    // Sent at once, as a guesser would: each is counted before it is checked, so none slips past the limit.
    const guesses = await Promise.all(Array.from({ length: LIMIT + 10 }, (_, i) => signInWithToken(t, `guess-${i}-${"x".repeat(20)}`)));
    const statuses = guesses.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const right = await signInWithToken(t, t.server.accessToken);
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    // The link printed at start trades nothing either, and a Bearer access token on any route is refused too.
    const link = await fetch(`${t.url}/?token=${encodeURIComponent(t.server.accessToken)}`, { redirect: "manual" });
    expect(link.status).toBe(429);
    expect(link.headers.get("set-cookie")).toBeNull();
    const bearer = await fetch(`${t.url}/api/workflows`, { headers: { authorization: `Bearer ${t.server.accessToken}` } });
    expect(bearer.status).toBe(429);
    expect(await bearer.text()).not.toContain('"workflows"');
  });
});

describe("Bearer guesses on any route count too", () => {
  let t: TestServer;
  let ann: TestUser;
  beforeAll(async () => {
    t = await startTestServer();
    ann = await createTestUser(t, "ann", "editor");
  });
  afterAll(() => t.stop());

  it("never refuses a script's parallel requests with a good token, however many", async () => {
    const answers = await Promise.all(Array.from({ length: LIMIT * 3 }, () => fetch(`${t.url}/api/workflows`, { headers: ann.bearer })));
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
  });

  it("a good token of one's own does not reset the count of guesses, and sessions by cookie go on", async () => {
    for (let i = 0; i < LIMIT; i++) {
      // Interleaving a valid token of one's own does not wipe the guesses.
      expect((await fetch(`${t.url}/api/workflows`, { headers: ann.bearer })).status).toBe(200);
      const guess = await fetch(`${t.url}/api/workflows`, { headers: { authorization: `Bearer weft_pat_guess${i}` } });
      expect(guess.status).toBe(401);
    }
    const refused = await fetch(`${t.url}/api/workflows`, { headers: ann.bearer });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await fetch(`${t.url}/mcp?token=${encodeURIComponent(t.server.accessToken)}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(429);
    // A signed-in browser is no token guess: its session cookie still works from the same address.
    expect((await fetch(`${t.url}/api/workflows`, { headers: ann.session })).status).toBe(200);
  });
});
