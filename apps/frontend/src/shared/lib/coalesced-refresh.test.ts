import { describe, expect, it } from "vitest";
import { coalescedRefresh } from "./coalesced-refresh.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("coalescedRefresh", () => {
  it("folds the requests made during a read into one more read, and reads again while asked to", async () => {
    const gates: (() => void)[] = [];
    let reads = 0;
    let again = false;
    const refresh = coalescedRefresh(async () => {
      reads++;
      await new Promise<void>((resolve) => gates.push(resolve));
      const more = again;
      again = false;
      return more;
    }, 1);
    /** Lets the read under way finish, then waits for the loop to settle. */
    const finishRead = async () => {
      gates.shift()?.();
      await tick();
    };

    refresh.request();
    refresh.request();
    refresh.request();
    expect(reads).toBe(1);
    await finishRead();
    expect(reads).toBe(2);
    await finishRead();
    expect(reads).toBe(2);

    // A read that answers "again" is followed by another, without a request.
    refresh.request();
    expect(reads).toBe(3);
    again = true;
    await finishRead();
    expect(reads).toBe(4);
    await finishRead();
    expect(reads).toBe(4);
    expect(gates).toHaveLength(0);
  });
});
