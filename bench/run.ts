// deno-lint-ignore-file no-console -- a script: printing is its output
/** `deno task bench [name...] [--quick]`: runs every benchmark under bench/ (or the named ones). */

/** Flags whose value is the next word (`--against <entry.js>`): that word is passed on, not a benchmark's name. */
const TAKES_VALUE = new Set(["--against"]);
const names: string[] = [];
const flags: string[] = [];
for (let i = 0; i < Deno.args.length; i++) {
  const arg = Deno.args[i];
  if (!arg.startsWith("--")) names.push(arg);
  else {
    flags.push(arg);
    if (TAKES_VALUE.has(arg) && i + 1 < Deno.args.length) flags.push(Deno.args[++i]);
  }
}
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
