/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment), so
 * `PSOT` is one step from `POST`. The strings compared here are short keys.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate, if it is close enough to be a plausible typo (case differences count as none). */
export function closest(
  input: string,
  candidates: Iterable<string>,
  allowed = Math.max(2, Math.floor(input.length / 3)),
): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= allowed ? best : undefined;
}

export function didYouMean(input: string, candidates: Iterable<string>): string {
  return meantText(closest(input, candidates));
}

/** ` (did you mean 'x'?)` for a match `closest` found, '' for none. */
export function meantText(match: string | undefined): string {
  return match ? ` (did you mean '${match}'?)` : '';
}

/** The word a message made by `didYouMean` suggests (zod's messages carry no other field for it). */
export function meantIn(message: string): string | undefined {
  return / \(did you mean '([^']+)'\?\)/.exec(message)?.[1];
}
