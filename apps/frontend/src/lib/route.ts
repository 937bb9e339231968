import { z } from "zod";
import { sessionHash, sessionIdFromHash } from "./builder-target.ts";

/** The app's top-level views; the location hash (#/scenes, #/agents, #/builder) keeps the choice across reloads. */
export const AppView = z.enum(["editor", "scenes", "agents", "builder"]);
export type AppView = z.infer<typeof AppView>;

/** What the address names: a view and, in the Builder, its session (null: the target picker). */
export interface Route {
  view: AppView;
  session: string | null;
}

/** The route of a location hash; anything unknown is the editor. */
export function routeFromHash(hash: string): Route {
  const parsed = AppView.safeParse(hash.replace(/^#\/?/, "").split("/")[0] || "editor");
  const view = parsed.success ? parsed.data : "editor";
  return { view, session: view === "builder" ? sessionIdFromHash(hash) : null };
}

/** The one hash of a route ("" for the editor, the app's plain address). */
export function hashOfRoute(route: Route): string {
  switch (route.view) {
    case "editor":
      return "";
    case "builder":
      return route.session ? sessionHash(route.session) : "#/builder";
    case "scenes":
    case "agents":
      return `#/${route.view}`;
    default: {
      const never: never = route.view;
      return never;
    }
  }
}
