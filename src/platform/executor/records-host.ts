import type { CredentialRecords } from '../../auth/provider.js';
import { type FromWorker, type ToWorker, toWire } from './protocol.js';

/**
 * The request thread's side of `RecordsClient`: answers one worker's (or sandbox's) credential
 * record operations from the vault, and holds the refresh locks it took until it says it is done,
 * or until `releaseAll` when it dies.
 */
export class RecordsHost {
  private nextLock = 0;
  private readonly locks = new Map<number, () => void>();

  constructor(
    private readonly records: (solution: string) => CredentialRecords,
    private readonly post: (message: ToWorker) => void,
  ) {}

  async answer(message: Extract<FromWorker, { type: 'records' }>): Promise<void> {
    const { rid, solution, op, key, arg, user } = message;
    const answer = (value: unknown) => this.post({ type: 'records-answer', rid, value });
    try {
      const records = this.records(solution);
      switch (op) {
        case 'get':
          return answer(await records.get(key));
        case 'keys':
          return answer((await records.keys?.()) ?? []);
        case 'getTokens':
          return answer(await records.getTokens(key, user));
        case 'setTokens':
          await records.setTokens(key, arg as Parameters<CredentialRecords['setTokens']>[1], user);
          return answer(undefined);
        case 'clearTokens':
          return answer(await records.clearTokens(key, arg as string | undefined, user));
        case 'lock': {
          const lock = this.nextLock++;
          // Held until the worker says it is done (or dies): its refresh runs there.
          await records.exclusive!(
            key,
            () =>
              new Promise<void>((unlock) => {
                this.locks.set(lock, unlock);
                answer(lock);
              }),
            user,
          );
          return;
        }
        case 'unlock':
          this.locks.get(arg as number)?.();
          this.locks.delete(arg as number);
          return answer(undefined);
      }
    } catch (error) {
      this.post({ type: 'records-answer', rid, error: toWire(error) });
    }
  }

  /** Releases every lock still held (the worker died). */
  releaseAll(): void {
    for (const unlock of this.locks.values()) unlock();
    this.locks.clear();
  }
}
