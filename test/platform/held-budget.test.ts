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
