/**
 * A binary search: the first index in [0, length) at which `holds` is true, for a predicate that is
 * false up to some index and true from it on (a sorted list asked "past this value?"); `length` when
 * it never holds.
 */
export function firstIndex(length: number, holds: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
