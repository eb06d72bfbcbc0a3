/**
 * Process groups that must not outlive moat, even when it is killed (SIGKILL included): a script
 * started after moat's own pattern (./_after_moat.ts) kills the groups of its list when its input
 * ends without the word "end" — moat died before it could stop them itself. moat appends each
 * group to the list file synchronously (a write still queued when moat dies would be lost), with
 * its leader's start time: a group whose leader's pid now belongs to another process is left be.
 */
import type { GroupReaper } from "../sandbox/ops.ts";
import { startAfterMoat } from "./_after_moat.ts";
import { procStatFields } from "./_proc_stat.ts";

/**
 * `$1` is the list file ("PGID START" lines). Reads its input until "end" (moat stopped the
 * groups: nothing to do) or its end (moat died: the groups are killed).
 */
export const GROUP_REAPER_SCRIPT = `
started() { local s; read -r s < "/proc/$1/stat" 2>/dev/null || return 1; s=\${s##*) }
  set -- $s; printf '%s' "\${20}"; }
list=$1
while IFS= read -r op; do
  [ "$op" = end ] && { rm -f -- "$list"; exit 0; }
done
if [ -f "$list" ]; then
  while IFS=' ' read -r pg start; do
    [[ $pg =~ ^[0-9]+$ ]] || continue
    if now=$(started "$pg") && [ "$now" != "$start" ]; then continue; fi
    kill -KILL -- "-$pg" 2>/dev/null
  done < "$list"
fi
rm -f -- "$list"
exit 0
`;

/** The start time of process `pid` (field 22 of /proc/PID/stat); undefined once it is gone. */
export function startTimeOf(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

/** Starts the reaper; undefined when its list or bash cannot be made. */
export function startGroupReaper(): GroupReaper | undefined {
  let list: string;
  try {
    list = Deno.makeTempFileSync({ prefix: "moat-groups-" });
  } catch {
    return undefined;
  }
  const script = startAfterMoat(GROUP_REAPER_SCRIPT, "moat-group-reaper", [list]);
  if (script === undefined) {
    Deno.remove(list).catch(() => {});
    return undefined;
  }
  return {
    add(pgid) {
      const start = startTimeOf(pgid);
      // Gone already: nothing of it to kill under that number.
      if (!Number.isInteger(pgid) || pgid <= 1 || start === undefined) return;
      try {
        Deno.writeTextFileSync(list, `${pgid} ${start}\n`, { append: true });
      } catch {
        // The list is gone (the temp directory cleared): moat stops its jobs itself at close.
      }
    },
    async close() {
      script.send("end");
      await script.close();
    },
  };
}
