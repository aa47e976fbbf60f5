/**
 * The environment a child process gets: the parent's, minus credentials.
 *
 * Rule: a variable is removed when its name, in any case, is one of the provider keys
 * (OPENAI_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY, ANTHROPIC_API_KEY), ends in KEY,
 * APIKEY, PAT or AUTH after the start or an underscore, or in _PWD (GITHUB_PAT, MYSQL_PWD,
 * NPM_CONFIG__AUTH ...), ends in TOKEN, PASSWORD, PASSWD or CREDENTIALS in any way
 * (GITHUB_TOKEN, PGPASSWORD, npm's `_authToken` ...), or contains SECRET anywhere. Names listed
 * in `keep` (config `EXEC.passEnv`) pass anyway.
 */

const PROVIDER_KEYS = new Set(["OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"]);
const SECRET_SUFFIX = /(^|_)(KEY|APIKEY|PAT|AUTH)$|_PWD$/i;
/** Words that mark a credential even run on to what is before them (PGPASSWORD, npm's `_authToken`). */
const SECRET_ENDING = /(TOKEN|PASSWORD|PASSWD|CREDENTIALS)$/i;

/** True if the variable `name` is treated as a credential and kept from child processes. */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return PROVIDER_KEYS.has(upper) || SECRET_SUFFIX.test(upper) || SECRET_ENDING.test(upper) || upper.includes("SECRET");
}

/** A copy of `env` without credentials (see the rule above); names in `keep` are kept. */
export function childEnvironment(env: NodeJS.ProcessEnv, keep: readonly string[] = []): NodeJS.ProcessEnv {
  const kept = new Set(keep.map((name) => name.toUpperCase()));
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !kept.has(name.toUpperCase())) continue;
    result[name] = value;
  }
  return result;
}

/** Quotes one argument for /bin/sh: `it's` → `'it'\''s'`. Plain words stay bare. */
export function shellQuote(argument: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(argument)) return argument;
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** The command line `command` followed by `args`, each quoted for the shell. */
export function commandLine(command: string, args: readonly string[] = []): string {
  return args.length === 0 ? command : `${command} ${args.map(shellQuote).join(" ")}`;
}
