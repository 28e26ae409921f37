/**
 * git's `--summary` lines (diff.c's diff_summary): what a diff created, deleted, renamed or changed
 * the mode of, as `git commit`, `git merge` and `git pull` print them under their diffstat.
 */

import { quoteName } from "../odb/bytes.ts";
import { type DiffFile, renameName } from "./diff.ts";

/** One line per file that was created, deleted, renamed or whose mode changed, in the files' order. */
export function renderSummary(files: readonly DiffFile[], quotePath: boolean): string {
  let out = "";
  for (const file of files) {
    const name = quoteName(file.path, quotePath);
    if (file.status === "added") out += ` create mode ${file.new_mode} ${name}\n`;
    else if (file.status === "deleted") out += ` delete mode ${file.old_mode} ${name}\n`;
    else if (file.status === "renamed") {
      out += ` rename ${renameName(file.old_path!, file.path, quotePath)} (${file.similarity}%)\n`;
      // After a rename the mode change names no file (show_mode_change without the name).
      if (file.old_mode && file.new_mode && file.old_mode !== file.new_mode) {
        out += ` mode change ${file.old_mode} => ${file.new_mode}\n`;
      }
    } else if (file.old_mode && file.new_mode && file.old_mode !== file.new_mode) {
      out += ` mode change ${file.old_mode} => ${file.new_mode} ${name}\n`;
    }
  }
  return out;
}
