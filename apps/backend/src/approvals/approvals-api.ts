import { Elysia } from "elysia";
import { z } from "zod";
import { ApprovalDecisionSchema, ApprovalViewSchema } from "@weft/types";
import { ApiError, jsonResponse } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "../auth/principal.ts";
import type { Approval } from "./approval-table.ts";
import { MAX_LINK_SECONDS, type ApprovalService, type Decider } from "./approval-service.ts";

const ListQuery = z.object({ runId: z.string().min(1).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }).strict();
const DecisionBody = z.object({ decision: ApprovalDecisionSchema, comment: z.string().max(4000).optional() }).strict();
const LinkBody = z.object({ expiresInSeconds: z.number().int().min(60).max(MAX_LINK_SECONDS).optional() }).strict();
/**
 * `decisionUrl`: where a mail or chat tool POSTs `{ token, decision, comment? }`; `pageUrl`: the page a person opens
 * from a mail to review and decide (the token after `#`, so it never reaches a server log or a link scanner's request).
 */
const LinkAnswer = z.object({ token: z.string(), decisionUrl: z.string(), pageUrl: z.string(), expiresAt: z.number() });
const LinkToken = z.string().min(1).max(2000);
const LinkDecisionBody = DecisionBody.extend({ token: LinkToken }).strict();
const LinkViewBody = z.object({ token: LinkToken }).strict();
/** What a link's page shows: the question and the data to review, and whether it is still open. */
const LinkView = z.object({
  question: z.string(),
  data: z.unknown(),
  status: z.enum(["pending", "decided", "closed"]),
  decision: ApprovalDecisionSchema.optional(),
  runId: z.string(),
  workflowId: z.string(),
});

/** A secret link is in this answer only: no cache may keep it. */
const NO_STORE = { "cache-control": "no-store" };

/**
 * The approvals' routes: the inbox's list, a decision by a signed-in user (their role against the node's: editors and
 * owners, or owners only), a signed link for mail and chat tools, and that link's decision (public: the link is the proof).
 */
export function approvalsApi(approvals: ApprovalService, maxBodyBytes: number) {
  const who = (request: Request): Decider => {
    const principal = principalOf(request);
    // The trust boundary lets no unauthenticated request reach these routes; this is a guard, not a path.
    if (principal === undefined) throw new ApiError("UNAUTHENTICATED", "Sign in to answer approvals.");
    return { userId: principal.userId, role: principal.role };
  };
  const allowed = (decider: Decider, approval: Approval): void => {
    if (!approvals.mayDecide(decider, approval)) {
      throw new ApiError(
        "FORBIDDEN",
        `Approval "${approval.id}" may be decided by ${approval.request.role === "owner" ? "owners only" : "editors and owners"}; you are ${decider.role === "owner" || decider.role === "editor" ? "an" : "a"} ${decider.role}.`,
        {
          required: approval.request.role,
          role: decider.role,
        },
      );
    }
  };
  const view = (decider: Decider, a: Approval) => ({ ...a, canDecide: a.status === "pending" && approvals.mayDecide(decider, a) });
  return new Elysia()
    .get("/api/approvals", async ({ request, query }) => {
      const decider = who(request);
      const q = parseWith(ListQuery, query, "query");
      return jsonResponse({ approvals: (await approvals.list(decider, q)).map((a) => view(decider, a)) });
    })
    .get("/api/approvals/:id", async ({ request, params }) => jsonResponse(view(who(request), await approvals.get(params.id))))
    .post("/api/approvals/:id/decision", async ({ request, params }) => {
      const decider = who(request);
      const body = await readBody(request, DecisionBody, maxBodyBytes);
      allowed(decider, await approvals.get(params.id));
      return jsonResponse(view(decider, await approvals.decide(params.id, body.decision, decider.userId, body.comment)));
    })
    .post("/api/approvals/:id/link", async ({ request, params }) => {
      const decider = who(request);
      const body = await readBody(request, LinkBody, maxBodyBytes, { allowEmpty: true });
      const approval = await approvals.get(params.id);
      allowed(decider, approval);
      const link = approvals.makeLink(approval, decider.userId, body?.expiresInSeconds);
      const origin = new URL(request.url).origin;
      return jsonResponse({ ...link, decisionUrl: `${origin}/api/approval-links/decision`, pageUrl: `${origin}/approve.html#${link.token}` }, 200, NO_STORE);
    })
    .post("/api/approval-links/view", async ({ request }) => {
      const body = await readBody(request, LinkViewBody, maxBodyBytes);
      const a = await approvals.viewByLink(body.token);
      const view: z.infer<typeof LinkView> = { question: a.request.question, data: a.request.data, status: a.status, runId: a.runId, workflowId: a.workflowId };
      if (a.decision !== undefined) view.decision = a.decision;
      return jsonResponse(view, 200, NO_STORE);
    })
    .post("/api/approval-links/decision", async ({ request }) => {
      const body = await readBody(request, LinkDecisionBody, maxBodyBytes);
      const decided = await approvals.decideByLink(body.token, body.decision, body.comment);
      return jsonResponse({ id: decided.id, runId: decided.runId, decision: decided.decision });
    });
}

export const APPROVALS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/approvals", "approvals", "Pending approvals the caller may decide (or, with runId, every approval of that run)", {
    query: ListQuery,
    response: z.object({ approvals: z.array(ApprovalViewSchema) }),
  }),
  route("GET", "/api/approvals/:id", "approvals", "One approval: its request, and its decision once made", { response: ApprovalViewSchema }),
  route("POST", "/api/approvals/:id/decision", "approvals", "Decide an approval (once: a second decision is 409); the run resumes on the chosen branch", {
    body: DecisionBody,
    response: ApprovalViewSchema,
  }),
  route("POST", "/api/approvals/:id/link", "approvals", "A signed one-time link to decide this approval (for mail or chat), shown in this answer only", {
    body: LinkBody,
    bodyOptional: true,
    response: LinkAnswer,
  }),
  route("POST", "/api/approval-links/view", "approvals", "What a signed link decides: the question, the data to review, and whether it is still open (the link stays unused)", {
    body: LinkViewBody,
    response: LinkView,
  }),
  route("POST", "/api/approval-links/decision", "approvals", "Decide through a signed link (no session: the link is the proof; it works once, until it expires)", {
    body: LinkDecisionBody,
    response: z.object({ id: z.string(), runId: z.string(), decision: ApprovalDecisionSchema.optional() }),
  }),
];
