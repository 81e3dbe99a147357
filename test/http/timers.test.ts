import { describe, expect, test } from 'vitest';
import { deadlineAfter } from '../../src/http/timers.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlineAfter (one Node timer per duration)', () => {
  test('fires each pending deadline once, never before its time, in the order set; cleared ones never', async () => {
    const fired: string[] = [];
    const at = new Map<string, number>();
    const set = (name: string, ms: number) => {
      const start = performance.now();
      return deadlineAfter(ms, () => {
        fired.push(name);
        at.set(name, performance.now() - start);
      });
    };
    const a = set('a', 30);
    const b = set('b', 30);
    const c = set('c', 30);
    b.clear();
    await wait(5);
    const d = set('d', 30);
    const e = set('e', 10); // another duration: its own queue, passes first
    c.clear();
    c.clear();
    await wait(80);
    expect(fired).toEqual(['e', 'a', 'd']);
    for (const [name, ms] of [
      ['a', 30],
      ['d', 30],
      ['e', 10],
    ] as const)
      expect(at.get(name)).toBeGreaterThanOrEqual(ms - 1);
    // Clearing after it fired changes nothing; a deadline set once the queue emptied still fires.
    a.clear();
    d.clear();
    e.clear();
    set('f', 30);
    await wait(60);
    expect(fired).toEqual(['e', 'a', 'd', 'f']);
  });

  test('many cleared deadlines do not pile up ahead of a pending one', async () => {
    let fired = 0;
    const first = deadlineAfter(40, () => fired++);
    for (let i = 0; i < 5000; i++) deadlineAfter(40, () => fired++).clear();
    const last = deadlineAfter(40, () => fired++);
    await wait(90);
    expect(fired).toBe(2);
    first.clear();
    last.clear();
  });
});
