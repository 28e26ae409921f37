// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Start-up: `pterm exec "hello"` end to end against `deno run` of an empty module, in the same
 * run. Target: at most 2.5× the empty run. Rows in between show where the time goes.
 */

import { ptermCommand, quick, type Subject, table, timeSubjects } from "./_timing.ts";

const dir = await Deno.makeTempDir({ prefix: "pterm-bench-startup-" });
try {
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const emptyWorker = `${dir}/empty_worker.ts`;
  await Deno.writeTextFile(`${dir}/worker_body.ts`, "self.postMessage(1);\n");
  await Deno.writeTextFile(
    emptyWorker,
    `const w = new Worker(new URL("./worker_body.ts", import.meta.url).href, { type: "module", deno: { permissions: "none" } } as WorkerOptions);\n` +
      "w.onmessage = () => w.terminate();\n",
  );
  const root = `${dir}/root`;
  // A validated pterm.json is remembered (core/config.ts); this row shows the call still costs the same.
  const configured = `${dir}/configured`;
  await Deno.mkdir(configured);
  await Deno.writeTextFile(`${configured}/pterm.json`, JSON.stringify({ limits: { stdout_bytes: 32768 } }));
  const subjects: Subject[] = [
    { name: "deno run empty.ts", cmd: [Deno.execPath(), "run", empty] },
    {
      name: "deno run (one empty worker)",
      cmd: [Deno.execPath(), "run", "--allow-read", "--unstable-worker-options", emptyWorker],
    },
    { name: 'pterm exec "hello --help" (no worker)', cmd: ptermCommand("exec", "--root", root, "hello --help") },
    { name: 'pterm exec "hello"', cmd: ptermCommand("exec", "--root", root, "hello") },
    { name: 'pterm exec "hello" with a pterm.json', cmd: ptermCommand("exec", "--root", configured, "hello") },
  ];
  const timings = await timeSubjects(subjects, quick ? 10 : 40);
  console.log(
    `## start-up (${quick ? 10 : 40} runs each, Deno ${Deno.version.deno}, ${Deno.build.os}-${Deno.build.arch})\n`,
  );
  console.log(table(timings, "deno run empty.ts"));
  const hello = timings.find((t) => t.name === 'pterm exec "hello"')!;
  const base = timings[0];
  console.log(`\npterm exec "hello" / empty deno run = ${(hello.median / base.median).toFixed(2)}× (target ≤ 2.5×)`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
