/**
 * What a skill's examples need before they can run (a server, a daemon), keyed by skill name.
 * The setup gets the fresh workspace root and returns a cleanup function.
 */

import { docSkillSetup } from "../commands/doc/skill_setup.ts";
import { gitSkillSetup } from "../commands/git/skill_setup.ts";
import { ircSkillSetup } from "../commands/irc/skill_setup.ts";

export type SkillSetup = (root: string) => Promise<() => Promise<void>>;

export const skillSetups: Record<string, SkillSetup> = {
  doc: docSkillSetup,
  git: gitSkillSetup,
  "irc-cli": ircSkillSetup,
};
