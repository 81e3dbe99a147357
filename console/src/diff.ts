/** One line of a diff: kept, added (+) or removed (-). */
export interface DiffLine {
  readonly kind: ' ' | '+' | '-';
  readonly text: string;
}

/** Past this many lines on a side, a file is said to differ rather than compared line by line. */
const MAX_LINES = 3000;

/**
 * The lines that differ between two texts, by their longest common subsequence (a table of
 * a × b lengths: definition files are small). Undefined when a side is too long to compare here.
 */
export function lineDiff(before: string, after: string): DiffLine[] | undefined {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length > MAX_LINES || b.length > MAX_LINES) return undefined;
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] =
        a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) out.push({ kind: '-', text: a[i++]! });
    else out.push({ kind: '+', text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: '-', text: a[i++]! });
  while (j < b.length) out.push({ kind: '+', text: b[j++]! });
  return out;
}

export type FileChange = { readonly path: string; readonly change: 'added' | 'removed' | 'changed' };

/** Which files two versions add, remove or change (unchanged ones left out), by path. */
export function changedFiles(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): FileChange[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths.flatMap((path): FileChange[] => {
    if (!(path in before)) return [{ path, change: 'added' }];
    if (!(path in after)) return [{ path, change: 'removed' }];
    return before[path] === after[path] ? [] : [{ path, change: 'changed' }];
  });
}

/** A diff as shown: lines, and runs of unchanged lines folded away (`count` of them). */
export type DiffRow = DiffLine | { readonly kind: 'fold'; readonly count: number };

/**
 * The changes with `context` unchanged lines before and after each; longer unchanged runs are
 * folded, so the first change is near the top on any screen (a phone shows a dozen lines).
 */
export function withContext(lines: readonly DiffLine[], context = 3): DiffRow[] {
  const near = new Uint8Array(lines.length);
  lines.forEach((line, i) => {
    if (line.kind === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) near[j] = 1;
  });
  const rows: DiffRow[] = [];
  let folded = 0;
  lines.forEach((line, i) => {
    if (near[i]) {
      if (folded > 0) rows.push({ kind: 'fold', count: folded });
      folded = 0;
      rows.push(line);
    } else folded++;
  });
  if (folded > 0) rows.push({ kind: 'fold', count: folded });
  return rows;
}
