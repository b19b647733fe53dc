/**
 * The characters `sanitizeText` removes: Unicode general categories Cc (controls), Cf (format,
 * bidi, invisible, tags), Zl and Zp (line and paragraph separators), as of Unicode 17.0, the
 * version Node 20 (ICU 78), Deno 2.9, Bun 1.4 and workerd agree on. Lone surrogates are removed
 * too (they are not characters). `tests/notify/removable.test.ts` checks these ranges against
 * `/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u` on every runtime, so a newer Unicode shows up as a failure.
 *
 * @module
 */

/** Removed BMP ranges, inclusive: the seed's list and what it misses (soft hyphen, U+180E, …). */
const BMP_RANGES: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f], // C0 controls (tab, line feed, carriage return, escape, …)
  [0x007f, 0x009f], // delete, C1 controls (next line U+0085, CSI U+009B, …)
  [0x00ad, 0x00ad], // soft hyphen
  [0x0600, 0x0605], // Arabic number signs
  [0x061c, 0x061c], // Arabic letter mark (bidi)
  [0x06dd, 0x06dd], // Arabic end of ayah
  [0x070f, 0x070f], // Syriac abbreviation mark
  [0x0890, 0x0891], // Arabic pound and piastre marks above
  [0x08e2, 0x08e2], // Arabic disputed end of ayah
  [0x180e, 0x180e], // Mongolian vowel separator
  [0x200b, 0x200f], // zero width space, non-joiner, joiner; LRM, RLM
  [0x2028, 0x202e], // line and paragraph separators; LRE, RLE, PDF, LRO, RLO
  [0x2060, 0x2064], // word joiner, invisible operators
  [0x2066, 0x206f], // LRI, RLI, FSI, PDI; deprecated format characters
  [0xfeff, 0xfeff], // zero width no-break space (byte order mark)
  [0xfff9, 0xfffb], // interlinear annotation anchor, separator, terminator
];

/** Removed astral ranges, inclusive. */
const ASTRAL_RANGES: readonly (readonly [number, number])[] = [
  [0x110bd, 0x110bd], // Kaithi number sign
  [0x110cd, 0x110cd], // Kaithi number sign above
  [0x13430, 0x1343f], // Egyptian hieroglyph format controls
  [0x1bca0, 0x1bca3], // shorthand format controls
  [0x1d173, 0x1d17a], // musical symbol format controls
  [0xe0001, 0xe0001], // language tag
  [0xe0020, 0xe007f], // tag characters (invisible ASCII copies)
];

/** One byte per BMP code unit: 1 when removed (surrogates are handled by the scan). */
export const REMOVED_BMP: Uint8Array = buildBmpTable();

/** High surrogates that start a removed astral character; every other pair is kept. */
export const REMOVED_ASTRAL_HIGH: Uint8Array = buildAstralHighTable();

/**
 * Tells whether an astral code point is removed.
 *
 * @param codePoint A code point above U+FFFF.
 * @returns Whether it is in Cc, Cf, Zl or Zp.
 */
export function isRemovedAstral(codePoint: number): boolean {
  for (const [from, to] of ASTRAL_RANGES) {
    if (codePoint < from) return false;
    if (codePoint <= to) return true;
  }
  return false;
}

function buildBmpTable(): Uint8Array {
  const table = new Uint8Array(0x10000);
  for (const [from, to] of BMP_RANGES) table.fill(1, from, to + 1);
  return table;
}

function buildAstralHighTable(): Uint8Array {
  // Indexed by high surrogate - 0xD800 (1024 entries).
  const table = new Uint8Array(0x400);
  for (const [from, to] of ASTRAL_RANGES) {
    for (let high = (from - 0x10000) >> 10; high <= (to - 0x10000) >> 10; high++) table[high] = 1;
  }
  return table;
}
