import type { Handler } from "../../core/context.ts";
import { drawBanner } from "./banner.ts";

const SIGNATURE = "lemonhall";

export const hello: Handler = (ctx) => {
  const lines = drawBanner("HELLO");
  ctx.stdout.write(`${lines.join("\n")}\n\n  -- ${SIGNATURE}\n`);
  return Promise.resolve({
    banner: "HELLO",
    banner_lines: lines.length,
    signature: SIGNATURE,
    session: ctx.session.id,
  });
};
