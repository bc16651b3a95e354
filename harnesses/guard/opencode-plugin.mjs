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
// dumps anyway). Not verified against a running OpenCode here: `board harness check opencode`
// reports whether the plugin file is in place.
import { checkToolCall } from './credential-rules.mjs';

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export const BoardCredentialGuard = async () => ({
  'tool.execute.before': async (input, output) => {
    const verdict = checkToolCall(input?.tool, output?.args ?? {});
    if (!verdict.allow) {
      throw new Error(`board credential guard: refused. ${verdict.reason}. Credentials and environment variables are off limits to board workers (lock rule).`);
    }
  },
  'shell.env': async (_input, output) => {
    if (!output || typeof output !== 'object') return;
    output.env ??= {};
    for (const name of Object.keys(process.env)) if (SECRET_NAME.test(name)) output.env[name] = '';
  },
});
