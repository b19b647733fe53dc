// Writes 20 bursts of 5 000 short lines through the sluice command's process io, one in ten to
// stderr: `L<n> O|E <q…>`, n counting across both. For cli-process.host.test.ts.
import { openProcessIo } from "../../src/cli/cli-io.ts";

const { io, close } = openProcessIo();
let n = 0;
for (let burst = 0; burst < 20; burst++) {
  for (let i = 0; i < 5_000; i++) {
    const err = i % 10 === 0;
    (err ? io.stderr : io.stdout).write(`L${n++} ${err ? "E" : "O"} ${"q".repeat(i % 60)}\n`);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await close();
