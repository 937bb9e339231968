import { describe, expect, it } from "vitest";
import { SignInThrottle } from "./sign-in-throttle.ts";

describe("SignInThrottle", () => {
  it("refuses a username after the allowed failures until the oldest leaves the window; others and successes are unaffected", () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.waitFor("ann")).toBe(0);
      throttle.failed("ann");
      now += 1000;
    }
    expect(throttle.waitFor("ann")).toBe(57_000);
    expect(throttle.waitFor("bea")).toBe(0);
    now += 57_000;
    expect(throttle.waitFor("ann")).toBe(0);
    throttle.failed("ann");
    expect(throttle.waitFor("ann")).toBe(1000);
    throttle.succeeded("ann");
    expect(throttle.waitFor("ann")).toBe(0);
  });
});
