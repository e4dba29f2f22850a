/** "did you mean EXPENSE_ADDED?": the closest candidate by edit distance, if it is close enough. */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  const wanted = normalise(input);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalise(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(2, Math.floor(wanted.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/**
 * The suffix ` (did you mean NAME?)` naming the candidate closest to a mistyped name (case, `_` and
 * `-` ignored), or '' when none is close: ready to append to an error message.
 */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const match = suggest(input, candidates);
  return match ? ` (did you mean ${match}?)` : '';
}

/** Case, underscores and dashes do not matter when matching names. */
function normalise(value: string): string {
  return value.toLowerCase().replace(/[_\-\s]/g, '');
}

/** Levenshtein distance over one row; `at` reads the row without an unchecked index. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  const at = (index: number) => previous[index] ?? 0;
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = at(0);
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = at(j);
      previous[j] = Math.min(above + 1, at(j - 1) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return at(b.length);
}
