import { NodeSpecSchema, messageOf, type NodeSpec } from "@weft/types";
import { CliError } from "./cli-error.ts";
import { accessToken } from "./server-client.ts";

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
