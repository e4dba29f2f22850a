import { crc32 } from 'node:zlib';

/**
 * The one checksum of the file store: CRC-32 over a file's bytes as ledgerhook lays them out (a
 * data file: "[\n", the item lines joined by ",\n", "\n]\n"), with their length, written
 * `crc32:<8 hex>:<bytes>`. The state keeps it for its data file, a checkpoint for the staging file's
 * kept bytes. A merge checks the old file with it and takes the new file's as it writes, each in one
 * native call per chunk of a few MB.
 *
 * It is what damage detection needs, at little cost: CRC-32 finds every error burst of up to 32
 * bits (any flipped byte) with certainty and other damage but for 1 in 2^32, the length and item
 * count beside it find every cut or added line, and it is what ext4, btrfs, gzip and PNG trust for
 * the same job. It is no seal
 * against someone who means to forge a file, and was never one: whoever can write the data file can
 * write what readers read; the check keeps a sync from building on a file it did not write.
 */
export class FileChecksum {
  #crc = 0;
  #bytes = 0;

  /** Adds `bytes`, the next ones of the file, to the running checksum. */
  add(bytes: Uint8Array): void {
    this.#crc = crc32(bytes, this.#crc);
    this.#bytes += bytes.length;
  }

  /**
   * Adds `length` next bytes whose own CRC-32 is known (`crc32(bytes)`), without reading them again:
   * a merge takes the CRC of an unchanged run once, for the old file's checksum and the new one's.
   */
  append(crc: number, length: number): void {
    this.#crc = crc32Combine(this.#crc, crc, length);
    this.#bytes += length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  toString(): string {
    return `crc32:${(this.#crc >>> 0).toString(16).padStart(8, '0')}:${this.#bytes}`;
  }
}

// CRC-32 of two byte strings joined, from each one's CRC and the second's length (zlib's
// crc32_combine, which Node does not expose): multiplications modulo the CRC polynomial, reflected.
const POLY = 0xedb88320;

/** a * b modulo the polynomial (both reflected, x^0 in the top bit). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let factor = b >>> 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= factor;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    factor = factor & 1 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N: number[] = [];
X2N[0] = 0x40000000; // x^1
for (let k = 1; k < 32; k += 1) X2N[k] = multiplyModP(X2N[k - 1] ?? 0, X2N[k - 1] ?? 0);

/** x^(n * 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let rest = n;
  let power = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multiplyModP(X2N[power & 31] ?? 0, p);
    rest = Math.floor(rest / 2);
    power += 1;
  }
  return p;
}

export function crc32Combine(first: number, second: number, secondLength: number): number {
  return (multiplyModP(x2nModP(secondLength, 3), first >>> 0) ^ (second >>> 0)) >>> 0;
}
