// OpenCode plugin: the credential guard of harnesses/opencode.yml.
//
// harnesses/bin/opencode-isolated.mjs writes a one-line plugin into the run's own config dir
// (`$OPENCODE_CONFIG_DIR/plugins/`) that re-exports `BoardCredentialGuard` from this file.
// Relied on (opencode.ai/docs/plugins): local plugin files in a config dir's `plugins/` folder are
// loaded at startup; a plugin is an async function returning hooks; `tool.execute.before`
// receives `(input, output)` with `input.tool` and `output.args`, and throwing from it blocks the
// call (the docs' own ".env protection" example). The `shell.env` hook lets a plugin set the
// environment of shell commands; it is used here to blank secret-looking variables so a shell
// the model runs never sees the provider key (belt and braces: the bash rule below refuses env
// dumps anyway). Tested with opencode 1.18.33 (test/clients): the hook refuses credential reads,
// and a grep over the vault no longer returns a .env file's lines. Imports nothing but the shared
// rules, so OpenCode needs no npm package to load it.
import { checkToolCall, safeSearchInclude } from './credential-rules.mjs';

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export const BoardCredentialGuard = async () => ({
  'tool.execute.before': async (input, output) => {
    const verdict = checkToolCall(input?.tool, output?.args ?? {});
    if (!verdict.allow) {
      throw new Error(`board credential guard: refused. ${verdict.reason}. Credentials and environment variables are off limits to board workers (lock rule).`);
    }
    // OpenCode's grep tool runs ripgrep without its config: a folder search would open credential
    // files. Its `include` filter becomes ripgrep's --glob, so an open search gets the exclude.
    if (input?.tool === 'grep' && output?.args && typeof output.args === 'object') output.args.include = safeSearchInclude(output.args.include);
  },
  'shell.env': async (_input, output) => {
    if (!output || typeof output !== 'object') return;
    output.env ??= {};
    for (const name of Object.keys(process.env)) if (SECRET_NAME.test(name)) output.env[name] = '';
  },
});
