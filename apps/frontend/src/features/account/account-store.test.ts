import { beforeEach, describe, expect, it } from "vitest";
import { freshPinia } from "../../shared/testing/fresh-pinia.ts";
import { AccountsApi } from "./accounts-api.ts";
import { useAccountStore } from "./account-store.ts";

beforeEach(() => void freshPinia());

/** An AccountsApi over a fake fetch answering GET /api/auth/session with `status` and `body`. */
function apiAnswering(status: number, body: unknown): AccountsApi {
  return new AccountsApi("", async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));
}

const principal = (role: string) => ({ principal: { kind: "session", userId: "u_1", username: "vic", name: "Vic", role } });

describe("account store", () => {
  it("assumes no ability until the server says who is signed in", () => {
    const account = useAccountStore();
    expect(account.can("viewer")).toBe(false);
    expect(account.role).toBeNull();
  });

  it("ranks the roles: a viewer may view only, an editor also edit, an owner everything", async () => {
    const expected = { viewer: [true, false, false], editor: [true, true, false], owner: [true, true, true] } as const;
    for (const [role, abilities] of Object.entries(expected)) {
      freshPinia();
      const account = useAccountStore();
      await account.load(apiAnswering(200, principal(role)));
      expect(account.role).toBe(role);
      expect([account.can("viewer"), account.can("editor"), account.can("owner")], role).toEqual(abilities);
    }
  });

  it("keeps the error and no principal when the answer is refused or does not fit", async () => {
    const account = useAccountStore();
    await account.load(apiAnswering(500, { error: { code: "INTERNAL", message: "boom" } }));
    expect(account.me).toBeNull();
    expect(account.error?.code).toBe("INTERNAL");
    await account.load(apiAnswering(200, principal("admin")));
    expect(account.me).toBeNull();
    expect(account.error?.code).toBe("BAD_RESPONSE");
  });
});
