/**
 * The outer CLI on commander: everything except the `exec` hot path. `exec` is declared here
 * too (from the same option list) so `pterm --help` and `pterm exec --help` describe it.
 */

import { Argument, Command, CommanderError, Option } from "@commander-js/extra-typings";
import type { FlagSpec } from "../../core/declaration.ts";
import { PtermError } from "../../core/errors.ts";
import { renderText } from "../../core/envelope.ts";
import { Registry } from "../../core/registry.ts";
import { runExec } from "./exec.ts";
import { failureEnvelope, printEnvelope } from "./warm_exec.ts";
import { resolveWorkspace } from "../../core/host/workspace.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";
import { execFlags, execSpec, rootFlag, textFlag } from "../../core/host/options.ts";

function optionFor(flag: FlagSpec): Option {
  const value = flag.type === "boolean" ? "" : ` <${flag.valueName ?? flag.type}>`;
  return new Option(`${flag.short ? `-${flag.short}, ` : ""}--${flag.name}${value}`, flag.description);
}

/** The JSON-or-text printer of the non-exec subcommands. */
async function emit(io: CliIo, asText: boolean, value: unknown, text: () => string): Promise<void> {
  await io.writeOut(asText ? text() : JSON.stringify(value, null, 2) + "\n");
}

export async function runProgram(io: CliIo, app: App): Promise<number> {
  let exitCode = 0;
  let pendingWrites: Promise<void> = Promise.resolve();
  const program = new Command()
    .name("pterm")
    .description("A pseudo terminal for AI agents: one tool, a whitelist of built-in commands, an audit log.")
    .version(app.version, "-V, --version")
    .exitOverride()
    .configureOutput({
      // Commander writes synchronously; keep the writes in order and wait for them before returning.
      writeOut: (text) => void (pendingWrites = pendingWrites.then(() => io.writeOut(text))),
      writeErr: (text) => void (pendingWrites = pendingWrites.then(() => io.writeErr(text))),
    })
    .showSuggestionAfterError(true);

  const exec = program.command("exec").description(execSpec.summary).argument(
    "[command-line]",
    "the command line, quoted as one argument",
  );
  for (const flag of execFlags) exec.addOption(optionFor(flag));
  exec.addHelpText(
    "after",
    "\nExamples:\n" + execSpec.examples.map((e) => `  ${e.command}\n      ${e.description}`).join("\n"),
  );
  exec.allowExcessArguments(false).action(async () => {
    exitCode = (await runExec(io, app, io.args.slice(1))) ?? 0;
  });

  const runs = program.command("runs").description("Read and replay the audit log.");
  runs.command("list")
    .description("List runs, newest first.")
    .option("--root <dir>", rootFlag.description)
    .option("--session <id>", "only this session's runs")
    .option("--since <time>", "only runs since an ISO time or a duration ago (30m, 2h, 7d)")
    .option("--failed", "only runs that failed or were interrupted")
    .option("--limit <n>", "at most this many runs", "50")
    .option("--text", textFlag.description)
    .action(async (options) => {
      const { listRuns, renderRunsTable } = await import("../../core/host/runs.ts");
      const { root } = resolveWorkspace(io, options.root);
      const runsFound = await listRuns(root, options);
      await emit(io, options.text ?? false, runsFound, () => renderRunsTable(runsFound));
    });
  runs.command("show")
    .description("Show one run's audit record.")
    .argument("<run-id>")
    .option("--root <dir>", rootFlag.description)
    .option("--text", textFlag.description)
    .action(async (runId, options) => {
      const { showRun, renderRun } = await import("../../core/host/runs.ts");
      const { root } = resolveWorkspace(io, options.root);
      const record = await showRun(root, runId);
      await emit(io, options.text ?? false, record, () => renderRun(record));
    });
  runs.command("replay")
    .description("Run a recorded call again (same command, stdin and session); the new run points back to it.")
    .argument("<run-id>")
    .option("--root <dir>", rootFlag.description)
    .option("--text", textFlag.description)
    .action(async (runId, options) => {
      const { replayRun } = await import("../../core/host/runs.ts");
      const { root } = resolveWorkspace(io, options.root);
      const envelope = await replayRun(
        {
          registry: new Registry(app.commands),
          codeDirs: app.codeDirs,
          version: app.version,
        },
        root,
        runId,
        {
          color: io.stdoutIsTerminal && !io.env("NO_COLOR"),
        },
      );
      await printEnvelope(io, envelope, options.text ?? false);
      exitCode = envelope.exit_code;
    });

  const skills = program.command("skills").description("The built-in SKILL.md documents.");
  skills.command("list")
    .description("List the skills with their descriptions.")
    .option("--text", textFlag.description)
    .action(async (options) => {
      const { listSkills } = await import("../../core/skills.ts");
      const found = (await listSkills(app.skillsDir)).map(({ name, description, path }) => ({
        name,
        description,
        path,
      }));
      await emit(
        io,
        options.text ?? false,
        found,
        () => found.map((s) => `${s.name.padEnd(16)} ${s.description}`).join("\n") + "\n",
      );
    });
  skills.command("show")
    .description("Print one SKILL.md.")
    .argument("<name>")
    .option("--json", "print name, description, path, content and examples as JSON")
    .action(async (name, options) => {
      const { showSkill } = await import("../../core/skills.ts");
      const skill = await showSkill(app.skillsDir, name);
      await io.writeOut(options.json ? JSON.stringify(skill, null, 2) + "\n" : skill.content);
    });

  program.command("schema")
    .description("Print the terminal_exec tool definition (OpenAI function shape by default).")
    .option("--format <format>", "openai | responses (flat, Responses API) | anthropic | json-schema", "openai")
    .option("--strict", 'for OpenAI\'s strict mode: every property required, optional ones nullable, "strict": true')
    .option("--envelope", "print the JSON Schema of the envelope instead")
    .option("--config", "print the JSON Schema of pterm.json instead")
    .option("--result <command>", 'print the JSON Schema of one command\'s result, e.g. "git status"')
    .action(async (options) => {
      const { schemaDocument } = await import("./schema.ts");
      const document = await schemaDocument(new Registry(app.commands), options);
      await io.writeOut(JSON.stringify(document, null, 2) + "\n");
    });

  program.command("prompt")
    .description("Print the usage rules for an agent's system prompt (generated from the registry).")
    .action(async () => {
      const { renderPrompt } = await import("../../core/agent_surface.ts");
      await io.writeOut(renderPrompt(await new Registry(app.commands).loadAll()));
    });

  for (const host of app.hostCommands ?? []) {
    const command = program.command(host.name).description(host.description);
    for (const flag of host.flags) command.addOption(optionFor(flag));
    if (host.action) {
      command.addArgument(new Argument(`<${host.action.name}>`).choices(host.action.choices)).action(
        async (action, options) => {
          const given = {
            ...(options as unknown as Record<string, string | boolean | undefined>),
            action: String(action),
          };
          exitCode = await host.run(io, given, app);
        },
      );
    } else {
      command.action(async (options) => {
        exitCode = await host.run(io, options as Record<string, string | boolean | undefined>, app);
      });
    }
  }

  try {
    await program.parseAsync([...io.args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof PtermError) {
      await pendingWrites;
      await io.writeErr(renderText(failureEnvelope(error)));
      exitCode = error.code === "InvalidArgs" ? 2 : 1;
    } else throw error;
  }
  await pendingWrites;
  return exitCode;
}
