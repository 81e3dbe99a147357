/** `1 row`, `2 rows`, `0 rows`: a count and its noun, singular for one. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
