/**
 * Memory per pending item: for each subject (see `_memory-subjects.ts`), the heap grows by how
 * much when `items` of them are pending at once, measured after full garbage collections, and
 * whether that stays flat over time: the same measure is taken again after each of
 * `churnBatches` further batches of `items` that are allocated and let go. After the last batch is
 * let go, what the heap still holds over the start is the leak per item (0 when nothing leaks).
 *
 * Heap figures are `process.memoryUsage().heapUsed` (V8 on Node and Deno, JavaScriptCore on Bun),
 * after `gc()` (Node and Deno, run with `--expose-gc`) or `Bun.gc(true)`.
 *
 * @module
 */
import process from "node:process";
import { legacyRequests, type MemorySubject, queuedNotifications } from "./_memory-subjects.ts";
import { mrtrFlows } from "./_memory-mrtr.ts";
import { type Spread, spreadOf } from "./_stats.ts";

/** One subject's figures. */
export interface MemoryRow {
  readonly name: string;
  readonly items: number;
  /** Bytes per pending item at each measure: the first batch, then after each churned batch. */
  readonly perItem: ReadonlyArray<{ readonly allocated: number; readonly bytes: number }>;
  /** The spread of those measures. */
  readonly perItemBytes: Spread;
  /** Heap over the start per item once everything is let go (the leak per item). */
  readonly retainedBytes: number;
  /** The bytes of the kind's message alone (fresh objects, held in an array), per item. */
  readonly messageBytes: number;
}

/** Options of {@linkcode benchMemory}. */
export interface MemoryOptions {
  /** Items pending at once. */
  readonly items: number;
  /** Batches of `items` allocated and let go between the first and the last measure. */
  readonly churnBatches: number;
  /** Measure after every this many churned batches (the chart's points). */
  readonly every: number;
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The heap after full collections. */
async function heap(): Promise<number> {
  const host = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (host.gc === undefined && host.Bun === undefined) {
    throw new Error("memory bench: no gc(); run Node and Deno with --expose-gc");
  }
  for (let i = 0; i < 4; i++) {
    if (host.gc !== undefined) host.gc();
    else host.Bun?.gc(true);
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

async function messageBytes(subject: MemorySubject, items: number): Promise<number> {
  const before = await heap();
  const held = Array.from({ length: items }, (_, i) => subject.message(i));
  const after = await heap();
  return (after - before - held.length * 8) / items;
}

async function measureSubject(subject: MemorySubject, options: MemoryOptions): Promise<MemoryRow> {
  const { items } = options;
  // One batch first, so what the first batch makes once (pools, caches, JIT code) is made already.
  await subject.add(items);
  await subject.release();
  const base = await heap();
  const perItem: Array<{ allocated: number; bytes: number }> = [];
  let allocated = 0;
  for (let batch = 0; batch <= options.churnBatches; batch++) {
    await subject.add(items);
    allocated += items;
    if (batch % options.every === 0 || batch === options.churnBatches) {
      perItem.push({ allocated, bytes: ((await heap()) - base) / items });
    }
    await subject.release();
  }
  const retainedBytes = ((await heap()) - base) / items;
  return {
    name: subject.name,
    items,
    perItem,
    perItemBytes: spreadOf(perItem.map((p) => p.bytes)),
    retainedBytes,
    messageBytes: await messageBytes(subject, items),
  };
}

/**
 * Measures the three subjects one after the other.
 *
 * @param options Items at once, churned batches and how often to measure.
 * @returns One row per subject.
 */
export async function benchMemory(options: MemoryOptions): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  const makers = [
    () => legacyRequests(Math.ceil(options.items / 1000)),
    () => Promise.resolve(queuedNotifications(options.items + 10)),
    () => mrtrFlows(),
  ];
  for (const make of makers) {
    const subject = await make();
    try {
      rows.push(await measureSubject(subject, options));
    } finally {
      await subject.close();
    }
  }
  return rows;
}
