import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";
import { RunListSchema } from "../../shared/api/schemas.ts";

/** What Home reads that no other feature does: the latest runs of every workflow. */
class HomeApi extends ApiClient {
  async recentRuns(limit: number) {
    const r = await this.request("GET", `/api/runs?limit=${limit}`, RunListSchema);
    return r.ok ? ok(r.value.runs) : r;
  }
}

export const homeApi = new HomeApi();

/** `base-copy`, or `base-copy-2`, `-3`… whichever is not taken: a copy never lands on its original. */
export function copyId(base: string, taken: ReadonlySet<string>): string {
  const first = `${base}-copy`;
  if (!taken.has(first)) return first;
  let n = 2;
  while (taken.has(`${first}-${n}`)) n++;
  return `${first}-${n}`;
}
