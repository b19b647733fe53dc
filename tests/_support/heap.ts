/**
 * Measures the JavaScript heap after a full garbage collection, on Node, Deno and Bun, for tests
 * that prove a flood leaves memory flat.
 *
 * @module
 */
import process from "node:process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | undefined;

/** Finds a way to force a full collection: `globalThis.gc`, `Bun.gc`, or V8's flag turned on at run time. */
function collector(): () => void {
  if (collect !== undefined) return collect;
  const runtime = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (typeof runtime.gc === "function") return collect = runtime.gc;
  const bun = runtime.Bun;
  if (bun !== undefined) return collect = () => bun.gc(true);
  setFlagsFromString("--expose-gc");
  return collect = runInNewContext("gc") as () => void;
}

/**
 * Collects garbage (twice, so finalizers' garbage goes too) and reads `heapUsed`.
 *
 * @returns The bytes of heap in use after the collection.
 */
export function heapAfterGc(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Forces a full garbage collection (twice, so finalizers' garbage goes too). */
export function collectGarbage(): void {
  const gc = collector();
  gc();
  gc();
}
