import { z } from "zod";

/** The app's top-level views; the location hash (#/home, #/scenes, #/agents, #/builder) keeps the choice across reloads. */
export const AppView = z.enum(["home", "editor", "scenes", "agents", "builder"]);
export type AppView = z.infer<typeof AppView>;

/** An editor address (#/workflows/:id[/runs/:runId][?node=:nodeId]): what a link from a chat, a tracker or a log opens. */
export interface EditorLink {
  workflow: string;
  run: string | null;
  node: string | null;
}

/** What the address names: a view; in the Builder, its session (null: the target picker); in the editor, the workflow shown. */
export interface Route {
  view: AppView;
  session: string | null;
  link: EditorLink | null;
}

const LINK = /^#\/workflows\/([^/?]+)(?:\/runs\/([^/?]+))?\/?(?:\?(.*))?$/;

function linkFromHash(hash: string): EditorLink | null {
  const match = LINK.exec(hash);
  if (!match) return null;
  const node = new URLSearchParams(match[3] ?? "").get("node");
  return { workflow: decodeURIComponent(match[1]), run: match[2] ? decodeURIComponent(match[2]) : null, node: node || null };
}

/** The route of a location hash; anything unknown is the editor. */
export function routeFromHash(hash: string): Route {
  const link = linkFromHash(hash);
  if (link) return { view: "editor", session: null, link };
  const parsed = AppView.safeParse(hash.replace(/^#\/?/, "").split("/")[0] || "editor");
  const view = parsed.success ? parsed.data : "editor";
  return { view, session: view === "builder" ? sessionIdFromHash(hash) : null, link: null };
}

function hashOfLink(link: EditorLink): string {
  const run = link.run ? `/runs/${encodeURIComponent(link.run)}` : "";
  const node = link.node ? `?${new URLSearchParams({ node: link.node })}` : "";
  return `#/workflows/${encodeURIComponent(link.workflow)}${run}${node}`;
}

/** The one hash of a route ("" for the editor with nothing stored open, the app's plain address). */
export function hashOfRoute(route: Route): string {
  switch (route.view) {
    case "editor":
      return route.link ? hashOfLink(route.link) : "";
    case "builder":
      return route.session ? sessionHash(route.session) : "#/builder";
    case "home":
    case "scenes":
    case "agents":
      return `#/${route.view}`;
    default: {
      const never: never = route.view;
      return never;
    }
  }
}

/** Same workflow and run: moving the selection within them replaces the history entry instead of adding one. */
export const samePlace = (a: Route, b: Route) => a.view === b.view && a.link?.workflow === b.link?.workflow && a.link?.run === b.link?.run;

/** The location hash of a session (`#/builder/<id>`), so a reload opens it again. */
export const sessionHash = (sessionId: string) => `#/builder/${encodeURIComponent(sessionId)}`;

export function sessionIdFromHash(hash: string): string | null {
  const match = /^#\/builder\/([^/]+)/.exec(hash);
  return match ? decodeURIComponent(match[1]) : null;
}

/** A scene's timeline at one session-log entry (#/scenes/:id?seq=N): what a scene suite's first broken step links to. */
export interface SceneLink {
  scene: string;
  seq: number | null;
}

const SCENE_LINK = /^#\/scenes\/([^/?]+)\/?(?:\?(.*))?$/;

export function sceneLinkFromHash(hash: string): SceneLink | null {
  const match = SCENE_LINK.exec(hash);
  if (!match) return null;
  const seq = new URLSearchParams(match[2] ?? "").get("seq");
  const n = seq !== null && /^\d+$/.test(seq) ? Number(seq) : null;
  return { scene: decodeURIComponent(match[1]), seq: n };
}

export function sceneLinkHash(link: SceneLink): string {
  return `#/scenes/${encodeURIComponent(link.scene)}${link.seq !== null ? `?seq=${link.seq}` : ""}`;
}
