import { describe, expect, it } from 'vitest';
import { SYSTEM_CLOCK } from '../../src/errors/clock.js';

// The system clock's sleep, written with the timers Node and browsers share (the browser client runs
// it too): it waits, and an abort ends it the way Node's timers/promises did.
describe('SYSTEM_CLOCK.sleep', () => {
  it('resolves after the wait', async () => {
    await expect(SYSTEM_CLOCK.sleep(1)).resolves.toBeUndefined();
  });

  it('rejects with an AbortError (ABORT_ERR, the reason as its cause) when aborted before or during the wait', async () => {
    const before = new AbortController();
    before.abort('stop');
    await expect(SYSTEM_CLOCK.sleep(60_000, before.signal)).rejects.toMatchObject({
      name: 'AbortError',
      code: 'ABORT_ERR',
      cause: 'stop',
    });
    const during = new AbortController();
    const waiting = SYSTEM_CLOCK.sleep(60_000, during.signal);
    during.abort('later');
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: 'later' });
  });
});
