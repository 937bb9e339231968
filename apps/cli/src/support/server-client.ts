import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { messageOf } from "@weft/types";
import { CliError, EXIT_USAGE } from "./cli-error.ts";

/** Where a command that talks to a running Weft goes without `--server`: WEFT_SERVER_URL, else the server's default address. */
export function defaultServer(env: Record<string, string | undefined>): string {
  return env.WEFT_SERVER_URL ?? `http://127.0.0.1:${env.PORT ?? "3000"}`;
}

/** The access token a script sends: WEFT_AUTH_TOKEN, else the one the server keeps in its data folder. */
export function accessToken(env: Record<string, string | undefined>): string {
  if (env.WEFT_AUTH_TOKEN) return env.WEFT_AUTH_TOKEN;
  const file = join(resolve(env.WEFT_DATA_DIR ?? "data"), "access-token");
  if (!existsSync(file)) throw new CliError(`weft: no access token: set WEFT_AUTH_TOKEN, or WEFT_DATA_DIR to the server's data folder (${file} does not exist).`, EXIT_USAGE);
  return readFileSync(file, "utf8").trim();
}

/** One JSON request to a running Weft as the access token's holder: the status and the parsed answer (unreachable: a CliError). */
export async function callServer(server: string, env: Record<string, string | undefined>, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const url = `${server.replace(/\/+$/, "")}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${accessToken(env)}`, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw new CliError(`weft: ${url} could not be reached (${messageOf(error)}). Is Weft running there?`);
  }
  if (res.status === 401) throw new CliError(`weft: ${server} refused the access token (401). Use the token that server printed at start: WEFT_AUTH_TOKEN, or its data folder's access-token file.`);
  const text = await res.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON: the caller reports the text.
  }
  return { status: res.status, body: answer };
}
