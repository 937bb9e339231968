import { a2aApi, type A2aApiDeps } from "./a2a-api.ts";

export { A2A_ROUTES } from "./a2a-api.ts";

/** Every agent as an A2A server: the routes, on the agent host the agent chat uses (this process or workers). */
export function createA2a(deps: A2aApiDeps) {
  return a2aApi(deps);
}
