// deno-lint-ignore-file no-console -- a script: printing is its output
/** `deno task bench [name...] [--quick]`: runs every benchmark under bench/ (or the named ones). */

const names = Deno.args.filter((a) => !a.startsWith("--"));
const flags = Deno.args.filter((a) => a.startsWith("--"));
const dir = new URL("./", import.meta.url);
const available: string[] = [];
for await (const entry of Deno.readDir(dir)) {
  if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.startsWith("_") && entry.name !== "run.ts") {
    available.push(entry.name.replace(/\.ts$/, ""));
  }
}
available.sort();
const chosen = names.length ? names : available;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`no benchmark ${name}; there are: ${available.join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n# bench/${name}.ts\n`);
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(`./${name}.ts`, dir).pathname, ...flags],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) Deno.exit(status.code || 1);
}
