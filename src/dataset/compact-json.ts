/*
 * JSON text that is exactly what JSON.stringify writes for the value JSON.parse reads from it
 * ("compact"): a service's serialiser usually writes it, and then its bytes can be kept as they
 * stand instead of serialised again (item-bytes.ts). Only what JSON.parse has accepted is scanned:
 * this finds the structure and judges the form, never whether the text is JSON.
 *
 * Compact, so that both give the same bytes: no whitespace between tokens; in strings, only the
 * escapes JSON.stringify writes (\" \\ \b \f \n \r \t: never \/ or \u); numbers as
 * Number.prototype.toString writes them, which a number without an exponent, "-0" or a fraction's
 * trailing zero, of at most 15 digits (a double keeps 15) and under 6 zeros after "0.", always is;
 * no key that starts with a digit (an object lists integer keys first); no key twice in one object
 * (JSON.parse keeps the last value in the first one's place). Anything else is merely not compact.
 */

/** The bytes the scan looks for: an enum, so that each is a constant in the compiled loops. */
export enum Byte {
  Tab = 0x09,
  LineFeed = 0x0a,
  CarriageReturn = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Comma = 0x2c,
  Minus = 0x2d,
  Dot = 0x2e,
  Zero = 0x30,
  One = 0x31,
  Nine = 0x39,
  Colon = 0x3a,
  UpperE = 0x45,
  OpenArray = 0x5b,
  Backslash = 0x5c,
  CloseArray = 0x5d,
  LowerA = 0x61,
  LowerB = 0x62,
  LowerE = 0x65,
  LowerF = 0x66,
  LowerL = 0x6c,
  LowerN = 0x6e,
  LowerR = 0x72,
  LowerS = 0x73,
  LowerT = 0x74,
  LowerU = 0x75,
  OpenObject = 0x7b,
  CloseObject = 0x7d,
}

/**
 * Where the escape at `at` (its backslash) ends (its last byte), when it is one JSON.stringify
 * writes: \" \\ \b \f \n \r \t, or \u00xx (lower-case hex) for another control character; else -1.
 */
function escapeEnd(bytes: Uint8Array, at: number): number {
  const byte = bytes[at + 1];
  if (
    byte === Byte.Quote ||
    byte === Byte.Backslash ||
    byte === Byte.LowerB ||
    byte === Byte.LowerF ||
    byte === Byte.LowerN ||
    byte === Byte.LowerR ||
    byte === Byte.LowerT
  )
    return at + 1;
  if (byte !== Byte.LowerU || bytes[at + 2] !== Byte.Zero || bytes[at + 3] !== Byte.Zero) return -1;
  const high = bytes[at + 4];
  const low = bytes[at + 5] as number;
  const digit =
    low >= Byte.Zero && low <= Byte.Nine
      ? low - Byte.Zero
      : low >= Byte.LowerA && low <= Byte.LowerF
        ? low - Byte.LowerA + 10
        : -1;
  if (digit < 0 || (high !== Byte.Zero && high !== Byte.One)) return -1;
  const code = (high === Byte.One ? 16 : 0) + digit;
  // Backspace, tab, line feed, form feed and carriage return have their short escapes.
  return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? -1 : at + 5;
}

/** The scan's bounds (an enum too: constants in the compiled code). */
enum Bound {
  /** Containers open at once that the scan follows; deeper text is judged not compact. */
  MaxDepth = 512,
  /** Slots of the keys' table, a power of 2; `SlotShift` takes a hash's top 12 bits. */
  Slots = 4096,
  SlotShift = 20,
  /** Keys held at once (of the open objects): at most half the slots. */
  MaxKeys = 2048,
}

/** Per open container, its opening byte. */
const kinds = new Uint8Array(Bound.MaxDepth + 1);
/** Per open object: where its keys start in `keyStack`. */
const keyBase = new Int32Array(Bound.MaxDepth + 1);

/*
 * The keys of the open objects, to find one written twice in one object: an open-addressed table
 * (a key's hash, the depth of its object, and where its text starts) and the stack of slots taken,
 * freed in reverse order when an object closes, which leaves the table as it was before the object
 * opened. Module state: a scan runs to its end synchronously and leaves the table empty.
 */
const slotHash = new Int32Array(Bound.Slots);
const slotDepth = new Int32Array(Bound.Slots);
/** Where a key's text starts (after its quote, so never 0); 0: a free slot. */
const slotAt = new Int32Array(Bound.Slots);
const keyStack = new Int32Array(Bound.MaxKeys);
let keysHeld = 0;

function freeKeys(from: number): void {
  for (let at = from; at < keysHeld; at += 1) slotAt[keyStack[at] as number] = 0;
  keysHeld = from;
}

/** Whether the keys at `x` and `y` (each after its opening quote, compact) are the same text. */
function sameKey(bytes: Uint8Array, x: number, y: number): boolean {
  for (; ; x += 1, y += 1) {
    const byte = bytes[x];
    if (byte !== bytes[y]) return false;
    if (byte === Byte.Quote) return true;
    if (byte === Byte.Backslash) {
      x += 1;
      y += 1;
      if (bytes[x] !== bytes[y]) return false;
    }
  }
}

/**
 * A compact key at `at` (its opening quote) of the innermost open object, at `depth`: the index
 * after its colon, or -1 when it is not compact, starts with a digit, or was already a key of that object.
 */
function keyEnd(bytes: Uint8Array, at: number, length: number, depth: number): number {
  if (bytes[at] !== Byte.Quote) return -1;
  const first = bytes[at + 1] as number;
  if (first >= Byte.Zero && first <= Byte.Nine) return -1;
  let hash = 0;
  let i = at + 1;
  for (; i < length; i += 1) {
    const byte = bytes[i] as number;
    if (byte === Byte.Quote) break;
    if (byte === Byte.Backslash) {
      // Hashed by its last byte: keys that differ only there are told apart by sameKey.
      i = escapeEnd(bytes, i);
      if (i < 0) return -1;
      hash = (Math.imul(hash, 31) + (bytes[i] as number)) | 0;
    } else hash = (Math.imul(hash, 31) + byte) | 0;
  }
  if (bytes[i + 1] !== Byte.Colon || keysHeld === Bound.MaxKeys) return -1;
  let slot = Math.imul(hash ^ depth, 0x9e3779b1) >>> Bound.SlotShift;
  for (; slotAt[slot] !== 0; slot = (slot + 1) & (Bound.Slots - 1))
    if (slotHash[slot] === hash && slotDepth[slot] === depth && sameKey(bytes, slotAt[slot] as number, at + 1))
      return -1;
  slotHash[slot] = hash;
  slotDepth[slot] = depth;
  slotAt[slot] = at + 1;
  keyStack[keysHeld] = slot;
  keysHeld += 1;
  return i + 2;
}

/** A compact string at `at` (its opening quote): the index after its closing quote, or -1. */
function stringEnd(bytes: Uint8Array, at: number, length: number): number {
  for (let i = at + 1; i < length; i += 1) {
    const byte = bytes[i];
    if (byte === Byte.Quote) return i + 1;
    if (byte === Byte.Backslash) {
      i = escapeEnd(bytes, i);
      if (i < 0) return -1;
    }
  }
  return -1;
}

/** A number at `at` as Number.prototype.toString writes it: the index after it, or -1. */
function numberEnd(bytes: Uint8Array, at: number): number {
  let i = bytes[at] === Byte.Minus ? at + 1 : at;
  const first = i;
  let byte = bytes[i] as number;
  if (byte === Byte.Zero) {
    i += 1;
    byte = bytes[i] as number;
  } else
    while (byte >= Byte.Zero && byte <= Byte.Nine) {
      i += 1;
      byte = bytes[i] as number;
    }
  let digits = i - first;
  if (digits === 0) return -1;
  if (byte === Byte.Dot) {
    i += 1;
    const fraction = i;
    byte = bytes[i] as number;
    while (byte >= Byte.Zero && byte <= Byte.Nine) {
      i += 1;
      byte = bytes[i] as number;
    }
    if (i === fraction || bytes[i - 1] === Byte.Zero) return -1;
    digits += i - fraction;
    if (bytes[first] === Byte.Zero) {
      let zeros = fraction;
      while (bytes[zeros] === Byte.Zero) zeros += 1;
      if (zeros - fraction >= 6) return -1;
    }
  } else if (bytes[first] === Byte.Zero && first !== at) return -1; // -0
  if (byte === Byte.LowerE || byte === Byte.UpperE || digits > 15) return -1;
  return i;
}

/** A literal at `at` (true, false or null): the index after it, or -1. */
function literalEnd(bytes: Uint8Array, at: number): number {
  const byte = bytes[at];
  if (byte === Byte.LowerT)
    return bytes[at + 1] === Byte.LowerR && bytes[at + 2] === Byte.LowerU && bytes[at + 3] === Byte.LowerE
      ? at + 4
      : -1;
  if (byte === Byte.LowerF)
    return bytes[at + 1] === Byte.LowerA &&
      bytes[at + 2] === Byte.LowerL &&
      bytes[at + 3] === Byte.LowerS &&
      bytes[at + 4] === Byte.LowerE
      ? at + 5
      : -1;
  if (byte === Byte.LowerN)
    return bytes[at + 1] === Byte.LowerU && bytes[at + 2] === Byte.LowerL && bytes[at + 3] === Byte.LowerL
      ? at + 4
      : -1;
  return numberEnd(bytes, at);
}

/**
 * The end of the compact object at `at` (its "{") in `bytes[..length]`, or -1 when it is not compact
 * (the caller then finds its end with `valueEnd`).
 */
export function compactObjectEnd(bytes: Uint8Array, at: number, length: number): number {
  if (bytes[at] !== Byte.OpenObject) return -1;
  const end = objectEnd(bytes, at, length);
  if (end < 0) freeKeys(0);
  return end;
}

function objectEnd(bytes: Uint8Array, at: number, length: number): number {
  let i = at;
  let depth = 0;
  for (;;) {
    const byte = bytes[i];
    if (byte === Byte.Quote) i = stringEnd(bytes, i, length);
    else if (byte === Byte.OpenObject || byte === Byte.OpenArray) {
      if (depth === Bound.MaxDepth) return -1;
      depth += 1;
      kinds[depth] = byte;
      keyBase[depth] = keysHeld;
      i += 1;
      if (bytes[i] !== (byte === Byte.OpenObject ? Byte.CloseObject : Byte.CloseArray)) {
        if (byte === Byte.OpenObject) i = keyEnd(bytes, i, length, depth);
        if (i < 0) return -1;
        continue;
      }
      depth -= 1;
      i += 1;
    } else i = literalEnd(bytes, i);
    if (i < 0) return -1;
    // After a value: the containers it closes, then a comma (and the next key), or the end.
    for (;;) {
      if (depth === 0) return i;
      const next = bytes[i];
      const object = kinds[depth] === Byte.OpenObject;
      if (next === Byte.Comma) {
        i = object ? keyEnd(bytes, i + 1, length, depth) : i + 1;
        if (i < 0) return -1;
        break;
      }
      if (next !== (object ? Byte.CloseObject : Byte.CloseArray)) return -1;
      if (object) freeKeys(keyBase[depth] as number);
      depth -= 1;
      i += 1;
    }
  }
}

/**
 * The end of any JSON value at `at` (its first byte) that JSON.parse accepted, compact or not:
 * strings skipped whatever their escapes, containers counted; -1 if the bytes end first.
 */
export function valueEnd(bytes: Uint8Array, at: number, length: number): number {
  const first = bytes[at];
  if (first === Byte.Quote) return skipString(bytes, at, length);
  if (first !== Byte.OpenObject && first !== Byte.OpenArray) {
    // A number or a literal: up to the byte that ends it.
    let i = at;
    while (i < length && !ENDS_SCALAR[bytes[i] as number]) i += 1;
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < length; i += 1) {
    const byte = bytes[i];
    if (byte === Byte.Quote) {
      i = skipString(bytes, i, length) - 1;
      if (i < 0) return -1;
    } else if (byte === Byte.OpenObject || byte === Byte.OpenArray) depth += 1;
    else if (byte === Byte.CloseObject || byte === Byte.CloseArray) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Any string at `at` (its opening quote): the index after its closing quote, or -1. */
function skipString(bytes: Uint8Array, at: number, length: number): number {
  for (let i = at + 1; i < length; i += 1) {
    const byte = bytes[i];
    if (byte === Byte.Quote) return i + 1;
    if (byte === Byte.Backslash) i += 1;
  }
  return -1;
}

/** JSON's whitespace. */
export const isSpace = (byte: number | undefined): boolean =>
  byte === Byte.Space || byte === Byte.LineFeed || byte === Byte.CarriageReturn || byte === Byte.Tab;

/** The bytes that end a number or a literal: whitespace, a comma, a closing bracket. */
const ENDS_SCALAR = new Uint8Array(256);
for (const byte of [
  Byte.Space,
  Byte.LineFeed,
  Byte.CarriageReturn,
  Byte.Tab,
  Byte.Comma,
  Byte.CloseObject,
  Byte.CloseArray,
])
  ENDS_SCALAR[byte] = 1;
