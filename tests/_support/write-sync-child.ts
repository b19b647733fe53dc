// A process that prints `count` lines of 100 bytes with writeAllSync and exits at once, saying on
// stderr how many it wrote and whether the reader was still there: run by write-sync.host.test.ts.
import process from "node:process";
import { writeAllSync } from "../../src/_internal/write-sync.ts";

const count = Number(process.argv.at(-1));
let written = 0;
let open = true;
while (written < count && open) {
  open = writeAllSync(1, `${String(written).padStart(99, "-")}\n`);
  if (open) written++;
}
writeAllSync(2, `wrote ${written}, reader ${open ? "there" : "gone"}\n`);
process.exit(0);
