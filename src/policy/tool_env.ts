/** The environment the tools get: a safe allow-list plus the `--allow-env` additions. */

/** Environment variables every tool gets (when set), before `--allow-env` additions. */
const SAFE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "LC_*",
  "TERM",
  "TMPDIR",
  "USER",
  "SHELL",
  "TZ",
];

/**
 * The environment tools get: the safe allow-list plus `grants.env` additions, taken from
 * `source`, never containing any of `secretEnvNames` nor a variable `grants.ignoreEnv` names
 * (`--ignore-env`: even with `--allow-env` or `-A`, and even one of the safe list).
 */
export function toolEnvironment(
  grants: { env: true | string[]; ignoreEnv?: readonly string[] },
  source: Record<string, string>,
  secretEnvNames: readonly string[],
): Record<string, string> {
  const secrets = new Set(secretEnvNames);
  const patterns = grants.env === true ? ["*"] : [...SAFE_ENV_NAMES, ...grants.env];
  const ignored = grants.ignoreEnv ?? [];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (secrets.has(name)) continue;
    if (ignored.some((p) => envNameMatches(p, name))) continue;
    if (patterns.some((p) => envNameMatches(p, name))) out[name] = value;
  }
  return out;
}

function envNameMatches(pattern: string, name: string): boolean {
  // Deno's --allow-env (and --ignore-env) accepts a trailing `*` as a prefix wildcard; nothing
  // else is a pattern.
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}
