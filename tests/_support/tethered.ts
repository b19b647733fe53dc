// Spawns a helper server that ends when the test process does, however that ends.
// node:child_process works the same on Node, Deno and Bun; the tether needs a POSIX sh.
import { type ChildProcess, spawn } from "node:child_process";
import { stopChild } from "./modern-peer.ts";

/**
 * The tether: `sh` runs the command in the background and waits for it. Its stdin is a pipe from
 * the test process; when that pipe closes (the test process exited, or was killed by a signal and
 * could run no handler), a watcher sends the command SIGTERM. SIGTERM, SIGINT or SIGHUP sent to
 * the shell are passed on to the command, and the shell exits with the command's status once the
 * command has ended (a trapped signal ends a `wait` early, hence the loop). The trap comes first:
 * the command may say it is ready before the shell reaches a later line, and a signal then would
 * end the shell itself (seen on a busy machine); one that comes before the command exists is
 * passed on once it does. The watcher reads a
 * copy of stdin (fd 3): a background job's own stdin is /dev/null in a shell without job control.
 */
const TETHER = `trap 'stopping=1; [ -n "$command" ] && kill -TERM "$command" 2>/dev/null' TERM INT HUP
exec 3<&0
"$@" </dev/null 3<&- &
command=$!
[ -n "$stopping" ] && kill -TERM "$command" 2>/dev/null
{ cat <&3 >/dev/null; kill -TERM "$command" 2>/dev/null; } &
watcher=$!
exec 3<&-
wait "$command"
status=$?
while kill -0 "$command" 2>/dev/null; do
  wait "$command"
  status=$?
done
kill "$watcher" 2>/dev/null
exit "$status"`;

/**
 * Spawns `command` with `args`, its stdout and stderr piped, tethered to this process (see
 * {@linkcode TETHER}): a test process killed by a signal leaves no helper running. For helpers
 * that do not watch a pipe from their parent themselves (redis-server, workerd).
 *
 * @param command The program.
 * @param args Its arguments.
 * @returns The child: the tethering shell, whose signals reach the command and whose exit is the
 *   command's. Stop it with {@linkcode stopTethered}.
 */
export function spawnTethered(command: string, args: readonly string[]): ChildProcess {
  return spawn("sh", ["-c", TETHER, "sh", command, ...args], { stdio: ["pipe", "pipe", "pipe"] });
}

/**
 * Ends a tethered child with {@linkcode stopChild} (SIGTERM, then SIGKILL after `graceMs`), then
 * closes the tether: a shell killed outright still lets its command go that way.
 *
 * @param child A child from {@linkcode spawnTethered}.
 * @param graceMs How long the command has to exit after SIGTERM.
 */
export async function stopTethered(child: ChildProcess, graceMs = 3000): Promise<void> {
  await stopChild(child, graceMs);
  child.stdin?.destroy();
}
