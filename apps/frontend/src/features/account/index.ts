export { default as LoginPage } from "./LoginPage.vue";
export { default as UserMenu } from "./UserMenu.vue";
export { useAccountStore, VIEWER_NOTE } from "./account-store.ts";
export { AccountsApi, ROLES, type PersonalToken, type Role, type User } from "./accounts-api.ts";
export { useSessionStore } from "./session-store.ts";
