/**
 * `sanitizeText` throughput on 1 MB of text (1 000 000 UTF-8 bytes) of three kinds, beside the
 * naive one-regex implementation, side by side in one run: plain ASCII, mixed scripts with emoji,
 * and hostile text with a format character every few characters. MB/s counts the input's UTF-8
 * bytes. `max` is the input's length, so all of it is examined and nothing is clamped.
 *
 * @module
 */
import { sanitizeText } from "../src/notify/sanitize-text.ts";
import { measureMicro, type MicroOptions } from "./_micro.ts";
import { mapSpread, type Spread } from "./_stats.ts";

/** One input kind: throughput of `sanitizeText` and of the naive implementation. */
export interface SanitizeRow {
  readonly name: string;
  /** UTF-8 bytes of the input. */
  readonly bytes: number;
  /** UTF-16 code units of the input. */
  readonly codeUnits: number;
  /** MB/s (10^6 UTF-8 bytes per second), one value per run. */
  readonly sanitizeMBps: Spread;
  readonly naiveMBps: Spread;
}

const NAIVE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The naive implementation: one regex over the whole input, then a code-unit slice. */
function naiveSanitize(text: string, max: number): string {
  return text.replace(NAIVE, "").slice(0, max);
}

const TARGET_BYTES = 1_000_000;
const encoder = new TextEncoder();

/** Repeats `unit` up to 1 MB of UTF-8, whole code points, as one flat string (as JSON.parse makes). */
function megabyteOf(unit: string): string {
  const unitBytes = encoder.encode(unit).length;
  let text = unit.repeat(Math.floor(TARGET_BYTES / unitBytes));
  for (const char of unit) {
    if (encoder.encode(text + char).length > TARGET_BYTES) break;
    text += char;
  }
  return JSON.parse(JSON.stringify(text)) as string;
}

const inputs: ReadonlyArray<{ readonly name: string; readonly text: string }> = [
  { name: "ASCII", text: megabyteOf('The quick brown fox jumps over the lazy dog. {"id": 42, "ok": true} ') },
  {
    name: "mixed scripts with emoji",
    text: megabyteOf("Hello, мир! 你好，世界。こんにちは 😀👍🏽🇫🇷 مرحبا שלום café "),
  },
  {
    name: "hostile (format every ~2)",
    text: megabyteOf("ab\u200Bc\u202Ed\u2066e\uFEFFf\u00ADgh\u200Di\u2028j\u{E0041}k\r\n"),
  },
];

/**
 * Measures every input on this runtime.
 *
 * @param options Runs and batch length (see `_micro.ts`).
 * @returns One row per input.
 */
export async function benchSanitize(options: MicroOptions): Promise<SanitizeRow[]> {
  const cases = [];
  for (const { name, text } of inputs) {
    if (sanitizeText(text, text.length) !== naiveSanitize(text, text.length)) {
      throw new Error(`bench input "${name}": sanitizeText and the naive implementation disagree`);
    }
    cases.push({ name: `${name}: sanitizeText`, fn: () => sanitizeText(text, text.length) });
    cases.push({ name: `${name}: naive regex`, fn: () => naiveSanitize(text, text.length) });
  }
  const timed = await measureMicro(cases, options);
  return inputs.map(({ name, text }) => {
    const bytes = encoder.encode(text).length;
    const mbps = (ns: number) => bytes / 1e6 / (ns / 1e9);
    return {
      name,
      bytes,
      codeUnits: text.length,
      sanitizeMBps: mapSpread(timed.get(`${name}: sanitizeText`) as Spread, mbps),
      naiveMBps: mapSpread(timed.get(`${name}: naive regex`) as Spread, mbps),
    };
  });
}
