import { z } from "zod";

/**
 * The value of an `image` or `file` port: the bytes as standard base64 with their media type
 * (`image/png`, `application/pdf`, …) and, for a file, an optional name. An image's media type is
 * an `image/*` one. MCP clients get such a skill output as image or embedded-resource content.
 */
export const MediaValueSchema = z.object({
  mimeType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a media type such as image/png"),
  data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be standard base64"),
  name: z.string().min(1).optional(),
});
export type MediaValue = z.infer<typeof MediaValueSchema>;

/** Whether a value is a media value, an image when `image` is asked (an `image/*` media type). */
export function isMediaValue(value: unknown, kind: "image" | "file"): value is MediaValue {
  const parsed = MediaValueSchema.safeParse(value);
  return parsed.success && (kind === "file" || parsed.data.mimeType.startsWith("image/"));
}

/** The JSON Schema of a media value (an interface port's or a tool parameter's). */
export const MEDIA_JSON_SCHEMA = {
  type: "object",
  properties: {
    mimeType: { type: "string", description: "The media type, e.g. image/png." },
    data: { type: "string", contentEncoding: "base64", description: "The bytes, standard base64." },
    name: { type: "string" },
  },
  required: ["mimeType", "data"],
};
