import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { NodeSpecSchema, messageOf, type NodeSpec } from "@weft/types";
import { CliError, EXIT_USAGE } from "./cli-error.ts";

/** The access token a script sends: WEFT_AUTH_TOKEN, else the one the server keeps in its data folder. */
function accessToken(env: Record<string, string | undefined>): string {
  if (env.WEFT_AUTH_TOKEN) return env.WEFT_AUTH_TOKEN;
  const file = join(resolve(env.WEFT_DATA_DIR ?? "data"), "access-token");
  if (!existsSync(file)) throw new CliError(`weft: no access token: set WEFT_AUTH_TOKEN, or WEFT_DATA_DIR to the server's data folder (${file} does not exist).`, EXIT_USAGE);
  return readFileSync(file, "utf8").trim();
}

/** The node types a running Weft serves (`GET /api/nodes`): the built-in ones and its MCP servers' tools. */
export async function serverNodes(server: string, env: Record<string, string | undefined>): Promise<NodeSpec[]> {
  const url = `${server.replace(/\/+$/, "")}/api/nodes`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: `Bearer ${accessToken(env)}`, accept: "application/json" } });
  } catch (error) {
    throw new CliError(`weft: ${url} could not be reached (${messageOf(error)}). Is Weft running there?`);
  }
  if (res.status === 401) throw new CliError(`weft: ${server} refused the access token (401). Use the token that server printed at start: WEFT_AUTH_TOKEN, or its data folder's access-token file.`);
  if (!res.ok) throw new CliError(`weft: ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const answer: unknown = await res.json().catch(() => undefined);
  const nodes = typeof answer === "object" && answer !== null && "nodes" in answer && Array.isArray(answer.nodes) ? answer.nodes : undefined;
  const specs = nodes?.map((node) => NodeSpecSchema.safeParse(node));
  if (!specs || specs.some((s) => !s.success)) throw new CliError(`weft: ${url} did not answer with node specs; is it a Weft server?`);
  return specs.flatMap((s) => (s.success ? [s.data] : []));
}
