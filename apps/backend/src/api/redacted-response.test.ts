import { describe, expect, it } from "vitest";
import { SecretRedactor } from "@weft/types";
import { jsonResponse } from "./errors.ts";
import { redactedResponse } from "./redacted-response.ts";

const KEY = "sk-live-ResponseGuard0123456789";

describe("the answer guard", () => {
  const redactor = new SecretRedactor();
  redactor.set("p", "Work", [KEY]);

  it("redacts a JSON answer built in memory, keeping its status and headers", async () => {
    const answer = await redactedResponse(jsonResponse({ error: { message: `echoed ${KEY}` } }, 502, { "x-extra": "1" }), redactor);
    expect(answer?.status).toBe(502);
    expect(answer?.headers.get("x-extra")).toBe("1");
    expect(await answer?.json()).toEqual({ error: { message: "echoed [redacted:Work]" } });
  });

  it("leaves other answers alone: files, NDJSON streams, values that are not a Response", async () => {
    const file = new Response(`const key = "${KEY}";`, { headers: { "content-type": "text/javascript" } });
    expect(await redactedResponse(file, redactor)).toBeUndefined();
    const stream = new Response(`{"line":1}\n`, { headers: { "content-type": "application/x-ndjson" } });
    expect(await redactedResponse(stream, redactor)).toBeUndefined();
    expect(await redactedResponse({ plain: KEY }, redactor)).toBeUndefined();
  });
});
