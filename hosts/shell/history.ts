/**
 * The shell's line history, one file per workspace root (`<root>/cache/shell_history`, owner-only).
 * A line that contains one of the workspace's secret values is never written (nor kept for
 * up/down): pterm's secrets are the credentials in `secrets/.env` files, and the irc settings
 * are the only such file pterm reads, so their credential values are what a line is checked against.
 */

import { parse } from "dotenv";
import { ENV_REL_PATH, loadConfig, quoteHashValues, SECRET_KEYS, secretValues } from "../../commands/irc/config.ts";
import { join } from "../../core/fs/path.ts";

export const HISTORY_REL_PATH = "cache/shell_history";
/** Lines kept, in memory and on disk. */
export const HISTORY_SIZE = 1000;

/**
 * The credential values of the workspace, read fresh each time (the host may edit the file while
 * the shell runs). A file that does not validate still yields the values of its secret keys.
 */
export async function workspaceSecrets(root: string): Promise<string[]> {
  try {
    return secretValues(await loadConfig(root));
  } catch {
    let text: string;
    try {
      text = await Deno.readTextFile(join(root, ...ENV_REL_PATH.split("/")));
    } catch {
      return [];
    }
    const values = parse(quoteHashValues(text));
    return SECRET_KEYS.map((key) => values[key]?.trim() ?? "").filter((value) => value.length > 0);
  }
}

/** Whether `line` contains any of `secrets`. */
export function containsSecret(line: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => secret.length > 0 && line.includes(secret));
}

function historyPath(root: string): string {
  return join(root, ...HISTORY_REL_PATH.split("/"));
}

/** The stored lines, oldest first. */
export async function loadHistory(root: string): Promise<string[]> {
  try {
    const text = await Deno.readTextFile(historyPath(root));
    return text.split("\n").filter((line) => line.length > 0).slice(-HISTORY_SIZE);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/**
 * Appends `line` unless it holds a secret (or spans lines); returns whether it was stored. The
 * file is trimmed back to HISTORY_SIZE lines when it has grown past twice that.
 */
export async function appendHistory(root: string, line: string, secrets: readonly string[]): Promise<boolean> {
  if (line.trim() === "" || line.includes("\n") || line.includes("\r") || containsSecret(line, secrets)) return false;
  const path = historyPath(root);
  await Deno.mkdir(join(root, "cache"), { recursive: true });
  await Deno.writeTextFile(path, line + "\n", { append: true, create: true, mode: 0o600 });
  const all = (await Deno.readTextFile(path)).split("\n").filter((l) => l.length > 0);
  if (all.length > 2 * HISTORY_SIZE) await Deno.writeTextFile(path, all.slice(-HISTORY_SIZE).join("\n") + "\n");
  return true;
}
