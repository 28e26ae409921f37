/**
 * `$EDITOR` for a `<<` line's stdin. The editor runs as git runs it (through `sh -c`, so
 * `EDITOR="code --wait"` works) on a fresh owner-only file in a temporary folder outside the
 * workspace; the saved text becomes the stdin. An editor that fails, or a file left empty,
 * abandons the line (null): nothing runs.
 */

import { join } from "../../core/fs/path.ts";

export async function editText(editor: string): Promise<string | null> {
  const dir = await Deno.makeTempDir({ prefix: "pterm-shell-" });
  const file = join(dir, "stdin.txt");
  try {
    await Deno.writeTextFile(file, "", { mode: 0o600 });
    const status = await new Deno.Command("sh", {
      args: ["-c", `${editor} "$1"`, "sh", file],
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) return null;
    const text = await Deno.readTextFile(file);
    return text === "" ? null : text;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
