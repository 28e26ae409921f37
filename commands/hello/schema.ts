import { z } from "zod";

export const helloResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("hello"),
  banner: z.string().describe("The word drawn in the banner."),
  banner_lines: z.number().int().positive(),
  signature: z.literal("lemonhall"),
  session: z.string(),
});
