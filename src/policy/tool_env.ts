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
 * `source`, never containing any of `secretEnvNames` (even with `--allow-env` or `-A`).
 */
export function toolEnvironment(
  grants: { env: true | string[] },
  source: Record<string, string>,
  secretEnvNames: readonly string[],
): Record<string, string> {
  const secrets = new Set(secretEnvNames);
  const patterns = grants.env === true ? ["*"] : [...SAFE_ENV_NAMES, ...grants.env];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (secrets.has(name)) continue;
    if (patterns.some((p) => envNameMatches(p, name))) out[name] = value;
  }
  return out;
}

function envNameMatches(pattern: string, name: string): boolean {
  // Deno's --allow-env accepts a trailing `*` as a prefix wildcard; nothing else is a pattern.
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}
