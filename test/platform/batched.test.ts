import { describe, expect, it } from 'vitest';
import { batched } from '../../src/platform/executor/batched.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('messages batched to a worker', () => {
  it("posts one turn's messages together, in order", async () => {
    const posted: unknown[] = [];
    const post = batched<string>(
      (m) => posted.push(m),
      () => undefined,
    );
    post('a');
    post('b');
    await turn();
    post('c');
    await turn();
    expect(posted).toEqual([['a', 'b'], 'c']);
  });

  it('a message the other side cannot take is handed back alone; the rest of its batch still goes', async () => {
    const posted: unknown[] = [];
    const unsent: unknown[] = [];
    const refuses = (m: string | string[]) => {
      if (m === 'bad' || (Array.isArray(m) && m.includes('bad'))) throw new Error('could not be cloned');
      posted.push(m);
    };
    const post = batched<string>(refuses, (m, error) => unsent.push([m, (error as Error).message]));
    post('a');
    post('bad');
    post('c');
    await turn();
    post('bad');
    await turn();
    expect(posted).toEqual(['a', 'c']);
    expect(unsent).toEqual([
      ['bad', 'could not be cloned'],
      ['bad', 'could not be cloned'],
    ]);
  });
});
