/**
 * The account feature as the others see it: the signed-in user and role, sign-in, the user menu, the accounts API.
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as UserMenu } from "./UserMenu.vue";
export { default as AccountDialog } from "./AccountDialog.vue";
export { useAccountStore, VIEWER_NOTE, viewerCannot } from "./account-store.ts";
export { AccountsApi, ROLES, type PersonalToken, type Role, type User } from "./accounts-api.ts";
export { useSessionStore } from "./session-store.ts";
/** The sign-in page, loaded when the server asks for a sign-in (`defineAsyncComponent` in App.vue). */
export const loadLoginPage = () => import("./LoginPage.vue");
