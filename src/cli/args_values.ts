/** Option values with a syntax of their own, checked apart from parseCliArgs. */

/** The names of `--allow-mcp=…` values (SERVER or SERVER__TOOL), or the usage error's text. */
export function allowMcpNames(values: readonly string[]): string[] | string {
  const names: string[] = [];
  for (const value of values) {
    for (const name of value.split(",").map((n) => n.trim())) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        return `Option '--allow-mcp' expects SERVER or SERVER__TOOL names separated by commas, ` +
          `got "${value}"`;
      }
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}
