/**
 * The environment a child process gets: the parent's, minus credentials, judged by name and
 * by value.
 *
 * By name, a variable is removed when its name, in any case, is one of the provider keys
 * (OPENAI_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY, ANTHROPIC_API_KEY), ends in KEY,
 * APIKEY, PAT or AUTH after the start or an underscore, or in _PWD (GITHUB_PAT, MYSQL_PWD,
 * NPM_CONFIG__AUTH ...), ends in TOKEN, PASSWORD, PASSWD or CREDENTIALS in any way
 * (GITHUB_TOKEN, PGPASSWORD, npm's `_authToken` ...), contains SECRET anywhere, names a
 * connection string, webhook or cookie (DATABASE_URL, *_DSN, *_WEBHOOK, *_WEBHOOK_URL, COOKIE,
 * *_COOKIE(S)), or an agent or cluster access (SSH_AUTH_SOCK, GPG_AGENT_INFO, KUBECONFIG,
 * DOCKER_AUTH_CONFIG).
 *
 * By value, whatever its name, a variable is removed when it holds a URL with a password
 * (`scheme://user:password@host`), a webhook URL (Slack, Discord, Teams, Zapier, IFTTT), a
 * cookie header (`name=value; other=value`), or a token in a well-known form (`sk-…`, `ghp_…`,
 * `github_pat_…`, `glpat-…`, `xox?-…`, `AKIA…`, a JSON web token).
 *
 * The setting `EXEC.environment` {include, exclude} (and the older `EXEC.passEnv`, same as
 * include) adjusts it: names in `include` pass whatever they look like; names in `exclude`
 * (`*` matches any run of characters, e.g. "AWS_*") never pass.
 */

const PROVIDER_KEYS = new Set(["OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"]);
const SECRET_SUFFIX = /(^|_)(KEY|APIKEY|PAT|AUTH)$|_PWD$/i;
/** Words that mark a credential even run on to what is before them (PGPASSWORD, npm's `_authToken`). */
const SECRET_ENDING = /(TOKEN|PASSWORD|PASSWD|CREDENTIALS)$/i;
/** Names that carry access by what they point at: connection strings, webhooks, cookies, agents, clusters. */
const ACCESS_NAME = /(^|_)(DATABASE_URL|DSN|WEBHOOK|WEBHOOK_URL|COOKIES?)$|^(SSH_AUTH_SOCK|GPG_AGENT_INFO|KUBECONFIG|DOCKER_AUTH_CONFIG)$/i;

/** Values that are credentials whatever the variable is called. */
const SECRET_VALUES: readonly RegExp[] = [
  /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  /^https:\/\/(hooks\.slack\.com|discord(app)?\.com\/api\/webhooks|[a-z0-9-]+\.webhook\.office\.com|hooks\.zapier\.com|maker\.ifttt\.com)\//i,
  /^\s*[A-Za-z0-9_.-]+=[^;]*;\s*[A-Za-z0-9_.-]+=/,
  /^(sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|gho_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})$/,
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+$/,
];

/** True if the variable `name` is treated as a credential and kept from child processes. */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return PROVIDER_KEYS.has(upper) || SECRET_SUFFIX.test(upper) || SECRET_ENDING.test(upper) || upper.includes("SECRET") || ACCESS_NAME.test(upper);
}

/** True if `value` looks like a credential (see the list above), whatever its variable's name. */
export function isSecretValue(value: string): boolean {
  return SECRET_VALUES.some((pattern) => pattern.test(value));
}

/** Which names pass whatever they look like, and which never pass (`*` globs). */
export interface EnvironmentFilter {
  include?: readonly string[];
  exclude?: readonly string[];
}

/**
 * A copy of `env` without credentials (see the rules above). `filter` may be the list of names
 * to keep (the older form) or {include, exclude}.
 */
export function childEnvironment(env: NodeJS.ProcessEnv, filter: readonly string[] | EnvironmentFilter = []): NodeJS.ProcessEnv {
  const { include = [], exclude = [] } = Array.isArray(filter) ? { include: filter as readonly string[] } : (filter as EnvironmentFilter);
  const kept = new Set(include.map((name) => name.toUpperCase()));
  const excluded = exclude.map(
    (glob) =>
      new RegExp(
        `^${glob
          .split("*")
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
        "i",
      ),
  );
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (excluded.some((pattern) => pattern.test(name))) continue;
    if (!kept.has(name.toUpperCase()) && (isSecretName(name) || isSecretValue(value))) continue;
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
