import { describe, expect, it } from 'vitest';
import { HeldBudget } from '../../src/platform/held-budget.js';

const MB = 1024 * 1024;

describe('large request bodies in flight', () => {
  it('are held to a per-user and a platform-wide budget, given back once; small bodies are not counted', () => {
    const budget = new HeldBudget(100 * MB, 64 * MB);
    const first = budget.take('bob', 30 * MB);
    const second = budget.take('bob', 30 * MB);
    expect(() => budget.take('bob', 30 * MB)).toThrow(
      /your large requests in flight would hold more than 64 MB/,
    );
    // Small bodies never count, whoever sends them.
    for (let i = 0; i < 100; i++) budget.take('bob', MB);
    const alice = budget.take('alice', 30 * MB);
    expect(() => budget.take('carol', 30 * MB)).toThrow(
      /the platform holds as many large requests as it allows/,
    );
    first();
    first();
    expect(() => budget.take('carol', 30 * MB)).not.toThrow();
    expect(() => budget.take('bob', 30 * MB)).toThrow(/platform holds/);
    second();
    alice();
    expect(() => budget.take('bob', 30 * MB)).not.toThrow();
  });
});

describe('answers not yet written out', () => {
  it('share the budget with request bodies: the user past its share gets 429, everyone past the platform 503', () => {
    const budget = new HeldBudget(100 * MB, 64 * MB);
    const upload = budget.take('bob', 30 * MB, 'request');
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return error as { code: string; message: string; retryAfterSeconds?: number };
      }
      throw new Error('not refused');
    };
    // Bob's upload and a 45 MB answer do not fit his 64 MB.
    const mine = refusal(() => budget.take('bob', 45 * MB, 'answer'));
    expect(mine).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(mine.message).toContain(
      'this answer (45 MB) and your others not yet read would hold more than 64 MB',
    );
    upload();
    const answer = budget.take('bob', 45 * MB, 'answer');
    const alice = budget.take('alice', 45 * MB, 'answer');
    // 90 of 100 MB held: the platform's limit, whoever asks next.
    const all = refusal(() => budget.take('carol', 20 * MB, 'answer'));
    expect(all).toMatchObject({ code: 'PLATFORM_BUSY', retryAfterSeconds: 1 });
    expect(all.message).toContain('the platform holds as many large answers as it allows (100 MB');
    expect(budget.held).toBe(90 * MB);
    answer();
    alice();
    expect(budget.held).toBe(0);
    expect(() => budget.take('carol', 64 * MB, 'answer')).not.toThrow();
  });

  it('count whatever their size (pipelined answers wait in memory), given back with giveBack', () => {
    const budget = new HeldBudget(100 * MB, 64 * MB);
    // 64 answers of 1 MB fill the user's share: the next small one is refused.
    for (let i = 0; i < 64; i++) budget.reserve('mallory', MB, 'answer');
    expect(budget.held).toBe(64 * MB);
    expect(() => budget.reserve('mallory', 100, 'answer')).toThrow(
      /this answer \(under 0.1 MB\) and your others not yet read would hold more than 64 MB/,
    );
    // Another user still gets its answers; small request bodies are still not counted.
    budget.reserve('alice', 200, 'answer');
    budget.take('mallory', MB, 'request');
    expect(budget.held).toBe(64 * MB + 200);
    // A page's line, as small, counts too until given back.
    const line = budget.take('alice', 300, 'answer');
    expect(budget.held).toBe(64 * MB + 500);
    line();
    line();
    for (let i = 0; i < 64; i++) budget.giveBack('mallory', MB);
    budget.giveBack('alice', 200);
    expect(budget.held).toBe(0);
    expect(() => budget.reserve('mallory', 64 * MB, 'answer')).not.toThrow();
  });
});
