import type { CredentialRecords } from '../../auth/provider.js';
import { ExecutionFailure, type FromWorker, type ToWorker } from './protocol.js';

/**
 * Credential records as seen where author work runs (a worker thread, a sandbox process): every
 * operation is a message to the request thread, which holds the vault, and `receive` takes its
 * answers. The master key and the store never come here.
 */
export class RecordsClient {
  private nextRid = 0;
  private readonly answers = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();

  constructor(private readonly send: (message: FromWorker) => void) {}

  /** An answer from the request thread. */
  receive(message: Extract<ToWorker, { type: 'records-answer' }>): void {
    const waiting = this.answers.get(message.rid);
    this.answers.delete(message.rid);
    if (message.error) waiting?.reject(new ExecutionFailure(message.error));
    else waiting?.resolve(message.value);
  }

  /** The records of `solution`. */
  records(solution: string): CredentialRecords {
    const ask = (
      op: Extract<FromWorker, { type: 'records' }>['op'],
      key: string,
      arg?: unknown,
      user?: string,
    ) =>
      this.ask({
        type: 'records',
        rid: 0,
        solution,
        op,
        key,
        ...(arg === undefined ? {} : { arg }),
        ...(user === undefined ? {} : { user }),
      });
    return {
      get: (key) => ask('get', key) as ReturnType<CredentialRecords['get']>,
      keys: () => ask('keys', '') as Promise<readonly string[]>,
      getTokens: (key, user) =>
        ask('getTokens', key, undefined, user) as ReturnType<CredentialRecords['getTokens']>,
      setTokens: async (key, tokens, user) => {
        await ask('setTokens', key, tokens, user);
      },
      clearTokens: (key, ifRefreshToken, user) =>
        ask('clearTokens', key, ifRefreshToken, user) as Promise<boolean>,
      exclusive: async (key, work, user) => {
        const lock = (await ask('lock', key, undefined, user)) as number;
        try {
          return await work();
        } finally {
          void ask('unlock', key, lock);
        }
      },
    };
  }

  private ask(message: Extract<FromWorker, { type: 'records' }>): Promise<unknown> {
    const rid = this.nextRid++;
    return new Promise((resolve, reject) => {
      this.answers.set(rid, { resolve, reject });
      this.send({ ...message, rid });
    });
  }
}
