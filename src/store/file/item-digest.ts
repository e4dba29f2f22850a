import { createHash, type Hash } from 'node:crypto';
import type { FileDigest } from './data-file.js';

const NEWLINE = Buffer.from('\n');

/**
 * A running digest of item lines: sha256 over each line and a newline. The state's checksum before
 * issue 23 (still checked when a state has one); a full read's checkpoints still record it.
 */
export class ItemDigest {
  readonly #hash: Hash = createHash('sha256');
  #items = 0;

  add(line: string): void {
    this.#hash.update(line).update(NEWLINE);
    this.#items += 1;
  }

  /** One line as bytes (its text in UTF-8, no newline): the same digest as `add` of its text. */
  addLine(line: Buffer): void {
    this.#hash.update(line).update(NEWLINE);
    this.#items += 1;
  }

  /** `count` lines given together, each already followed by its newline: one hash update for all. */
  addLines(lines: Buffer, count: number): void {
    this.#hash.update(lines);
    this.#items += count;
  }

  get items(): number {
    return this.#items;
  }

  result(): FileDigest {
    return { items: this.#items, checksum: `sha256:${this.#hash.digest('hex').slice(0, 32)}` };
  }

  /** The digest so far, the running hash left open (a checkpoint records it; more lines follow). */
  peek(): FileDigest {
    return { items: this.#items, checksum: `sha256:${this.#hash.copy().digest('hex').slice(0, 32)}` };
  }
}
