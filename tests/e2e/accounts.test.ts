import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { openSettingsTab } from "./support/settings.ts";
import { useWeft } from "./support/weft.ts";
import { templateWorkflow } from "../../apps/backend/src/testing/test-server.ts";
import { UserListAnswerSchema as Users } from "../../apps/backend/src/testing/users.ts";
import { RunListSchema as Runs } from "../../apps/frontend/src/shared/api/schemas.ts";

const weft = useWeft({}, async () => {
  await weft.createWorkflow(templateWorkflow("notes"));
  const viewer = await weft.api("POST", "/api/users", { username: "vic", role: "viewer", password: "vic's password" });
  expect(viewer.status).toBe(201);
});

const loginDialog = () => weft.page.getByRole("dialog", { name: "Sign in to Weft" });

/** A browser without a session: the next page load shows the login page. */
async function signedOutBrowser() {
  await weft.context.clearCookies();
  await weft.page.goto(weft.url);
  await poll(() => loginDialog().count()).toBe(1);
}

describe("accounts in the editor", () => {
  it("lets the owner create an editor in Settings → Users", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByTestId("user-menu").click();
    expect(await page.getByTestId("user-role").innerText()).toBe("owner");
    await page.keyboard.press("Escape");
    const users = await openSettingsTab(page, "users", "users-settings");
    await users.getByTestId("user-username").fill("edna");
    await users.getByTestId("user-role").selectOption("editor");
    await users.getByTestId("user-password").fill("edna's password");
    await users.getByTestId("user-create").click();
    await poll(() => users.getByTestId("user-edna").count()).toBe(1);
    expect(Users.parse((await weft.api("GET", "/api/users")).body).users.map((u) => [u.username, u.role])).toContainEqual(["edna", "editor"]);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByTestId("settings-close").click();
  });

  it("lets the owner see and revoke a user's personal API token in Settings → Users", async () => {
    const { page } = weft;
    const created = await weft.api("POST", "/api/auth/tokens", { name: "nightly" });
    expect(created.status).toBe(201);
    const secret = String((created.body as { secret: unknown }).secret);
    const bearer = { headers: { authorization: `Bearer ${secret}` } };
    expect((await fetch(`${weft.url}/api/auth/session`, bearer)).status).toBe(200);

    const users = await openSettingsTab(page, "users", "users-settings");
    await users.getByRole("button", { name: "Personal API tokens of owner" }).click();
    const tokens = users.getByTestId("user-tokens-owner");
    await poll(() => tokens.getByText("nightly").count()).toBe(1);
    expect(await tokens.innerText()).not.toContain(secret);
    expect(await seriousInBothThemes(page)).toEqual({});
    await tokens.getByRole("button", { name: "Revoke owner's token nightly" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke" }).click();
    await poll(async () => (await fetch(`${weft.url}/api/auth/session`, bearer)).status).toBe(401);
    await poll(() => tokens.getByText("nightly").count()).toBe(0);
    await page.getByTestId("settings-close").click();
  });

  it("gives the owner a personal API token once, from the user menu", async () => {
    const { page } = weft;
    await page.getByTestId("user-menu").click();
    expect(await page.getByTestId("user-menu").getAttribute("aria-expanded")).toBe("true");
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByTestId("user-menu-account").click();
    const dialog = page.getByTestId("account-dialog");
    await dialog.getByTestId("token-name").fill("ci");
    await dialog.getByRole("button", { name: "Create token" }).click();
    await poll(() => dialog.getByTestId("token-secret").count()).toBe(1);
    const secret = (await dialog.getByTestId("token-secret").locator("code").innerText()).trim();
    expect(secret).toMatch(/^weft_pat_/);
    const res = await fetch(`${weft.url}/api/auth/session`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
    expect(await seriousInBothThemes(page)).toEqual({});
    await dialog.getByRole("button", { name: "Revoke ci" }).click();
    await poll(async () => (await fetch(`${weft.url}/api/auth/session`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
  });

  it("signs a viewer in by keyboard alone; the editor offers no Save or Run and says why", async () => {
    const { page } = weft;
    await signedOutBrowser();
    // The username field has the focus: type, Tab to the password, Enter submits.
    await page.keyboard.type("vic");
    await page.keyboard.press("Tab");
    await page.keyboard.type("vic's password");
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("user-menu").count()).toBe(1);
    expect(await page.getByTestId("user-menu").getAttribute("aria-label")).toBe("Account: vic, viewer");
    await poll(() => page.getByTestId("viewer-note").count()).toBe(1);
    expect(await page.getByTestId("viewer-note").innerText()).toContain("You are a viewer");
    await poll(() => page.getByTestId("run").count()).toBe(1);
    expect(await page.getByTestId("run").isDisabled()).toBe(true);
    expect(await page.getByTestId("save").isDisabled()).toBe(true);
    expect(await page.getByTestId("run").getAttribute("title")).toContain("Ask an owner for the editor role");
    // Before any run exists: a run row of the run panel has a finding of its own (label-content-name-mismatch), not this page's.
    expect(await seriousInBothThemes(page)).toEqual({});

    // The keyboard shortcut is refused by the server, with a message that says why; no run is made.
    const before = Runs.parse((await weft.api("GET", "/api/runs")).body).runs.length;
    await page
      .locator(".vue-flow")
      .first()
      .click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Control+Enter");
    await Bun.sleep(500);
    expect(Runs.parse((await weft.api("GET", "/api/runs")).body).runs.length).toBe(before);

    // No Users tab for a viewer.
    await page.getByTestId("settings").click();
    await poll(() => page.getByTestId("settings-tab-llm").count()).toBe(1);
    expect(await page.getByTestId("settings-tab-users").count()).toBe(0);
    await page.getByTestId("settings-close").click();
  });

  it("signs an editor in with username and password after a wrong one, shows who they are, and runs a workflow", async () => {
    const { page } = weft;
    await signedOutBrowser();
    const dialog = loginDialog();
    await dialog.getByLabel("Username").fill("edna");
    await dialog.getByLabel("Password").fill("not her password");
    await dialog.getByRole("button", { name: "Sign in" }).click();
    await poll(() => dialog.getByRole("alert").innerText()).toBe("Wrong username or password.");
    // The password is cleared and focused for the next try.
    expect(await dialog.getByLabel("Password").inputValue()).toBe("");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("password");
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.type("edna's password");
    await page.keyboard.press("Enter");

    await poll(() => page.getByTestId("user-menu").count()).toBe(1);
    expect(await page.getByTestId("user-menu").getAttribute("aria-label")).toBe("Account: edna, editor");
    expect(await page.getByTestId("viewer-note").count()).toBe(0);
    await poll(() => page.getByTestId("run").isEnabled()).toBe(true);
    const before = Runs.parse((await weft.api("GET", "/api/runs")).body).runs.length;
    await page.getByTestId("run").click();
    // The workflow asks for a topic, so the run dialog opens (waited for: it may still be loading under load).
    await poll(() => page.locator(".run-dialog").count()).toBe(1);
    await page.locator(".run-dialog textarea").fill("bees");
    await page.locator('.run-dialog button[type="submit"]').click();
    await poll(async () => Runs.parse((await weft.api("GET", "/api/runs")).body).runs.length).toBe(before + 1);

    // Sign out from the user menu: the login page again, and the session is gone on the server.
    await page.getByTestId("user-menu").click();
    await page.getByTestId("user-menu-sign-out").click();
    await poll(() => loginDialog().count()).toBe(1);
    expect((await weft.context.cookies()).filter((c) => c.name === "weft_session" && c.value !== "")).toEqual([]);
  });
});
