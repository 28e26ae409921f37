/** `find`: paths below folders by name and type (findutils' spelling; no -exec, no -delete). */

import { fileCommand } from "./declare.ts";

export const findSpec = fileCommand("find", "findResultSchema", {
  summary: "List paths below folders, by name (-name '*.py'), path, type (-type f|d|l) and depth.",
  description: "Tests combine with AND. Actions (-exec, -delete, -fprint…) and operators (-o, !, parentheses) " +
    "are refused. Symlinks are listed, never followed.",
  positionals: [{ name: "starts", description: "Where to start (default .)", variadic: true, path: "read" }],
  flags: [
    { name: "name", type: "string", valueName: "glob", description: "The name matches the wildcard (* ? [..])" },
    { name: "iname", type: "string", valueName: "glob", description: "Like -name, ignoring case" },
    {
      name: "path",
      aliases: ["wholename"],
      type: "string",
      valueName: "glob",
      description: "The printed path matches (* crosses /)",
    },
    { name: "type", type: "string", choices: ["f", "d", "l"], description: "f file, d folder, l symlink" },
    { name: "maxdepth", type: "number", min: 0, description: "Descend at most this many levels" },
    { name: "mindepth", type: "number", min: 0, description: "Print nothing above this level" },
  ],
  examples: [{ command: "find src -name '*.py' -type f", description: "Python files below src/." }],
}, { spellings: true });
