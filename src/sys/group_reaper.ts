/**
 * Process groups that must not outlive moat, even when it is killed (SIGKILL included): a script
 * started after moat's own pattern (./_after_moat.ts) is told each group, and kills them all
 * when its input ends without the word "end" — moat died before it could stop them itself. A
 * group whose leader's pid now belongs to another process (the start time differs) is left be.
 */
import type { GroupReaper } from "../sandbox/ops.ts";
import { startAfterMoat } from "./_after_moat.ts";

/** Reads "add PGID" and "end" lines; at the end of its input without "end", kills the groups. */
export const GROUP_REAPER_SCRIPT = `
started() { local s; read -r s < "/proc/$1/stat" 2>/dev/null || return 1; s=\${s##*) }
  set -- $s; printf '%s' "\${20}"; }
declare -A start
while IFS=' ' read -r op pg; do
  case $op in
    add) [[ $pg =~ ^[0-9]+$ ]] && start[$pg]=$(started "$pg") ;;
    end) exit 0 ;;
  esac
done
for pg in "\${!start[@]}"; do
  if now=$(started "$pg") && [ "$now" != "\${start[$pg]}" ]; then continue; fi
  kill -KILL -- "-$pg" 2>/dev/null
done
exit 0
`;

/** Starts the reaper; undefined when bash cannot be started. */
export function startGroupReaper(): GroupReaper | undefined {
  const script = startAfterMoat(GROUP_REAPER_SCRIPT, "moat-group-reaper", []);
  if (script === undefined) return undefined;
  return {
    add: (pgid) => script.send(`add ${pgid}`),
    async close() {
      script.send("end");
      await script.close();
    },
  };
}
