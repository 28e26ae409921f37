import { exec } from "./_support/helpers.ts";
const root = "/tmp/gp/w";
for (const line of Deno.args) {
  const e = await exec(root, line);
  console.log("$", line, e.exit_code, e.error_code, "\n" + e.stdout.slice(0, 400), e.stderr.slice(0, 400));
}
