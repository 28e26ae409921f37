/** `pwd`: the working folder is always the workspace root, written `.`. */

import { fileCommand } from "./declare.ts";

export const pwdSpec = fileCommand("pwd", "pwdResultSchema", {
  summary: "Print the working folder: always the workspace root, `.` (every path is relative to it).",
  examples: [{ command: "pwd", description: "Prints `.`." }],
});
