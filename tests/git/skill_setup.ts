/** The git skill's examples start from a project folder `demo/` with two files. */

export async function gitSkillSetup(root: string): Promise<() => Promise<void>> {
  await Deno.mkdir(`${root}/demo/src`, { recursive: true });
  await Deno.writeTextFile(`${root}/demo/README.md`, "# demo\n");
  await Deno.writeTextFile(`${root}/demo/src/app.ts`, 'console.log("hello");\n');
  return async () => {};
}
