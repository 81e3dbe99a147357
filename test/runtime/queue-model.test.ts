import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_QUEUE_TABLE } from '../../src/local/stage.js';
import { customersApi, queueSolution, screen } from '../helpers/queue.js';
import { syncSetup } from '../helpers/sync.js';

/**
 * The queue against a model service: any sequence of creates, updates and deletes, with the service
 * going offline and coming back, answers lost on the way back, and pushes dying mid-send, ends
 * (once online and pushed) with the local table equal to the service's records and an empty queue.
 * Equality also proves nothing was applied twice: a repeated POST would leave a remote record the
 * device does not have.
 */
type Step =
  | { kind: 'create'; name: string }
  | { kind: 'update'; pick: number; name: string }
  | { kind: 'delete'; pick: number }
  | { kind: 'offline' | 'online' | 'push' }
  /** The service applies the next change, but its answer never arrives (the connection drops). */
  | { kind: 'lose-answer' }
  /** The next push dies while the service applies the change: the command stays `processing`. */
  | { kind: 'crash' };

const name = fc.constantFrom('Ada', 'Bob', 'Cy', 'Di');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: name.map((n) => ({ kind: 'create' as const, name: n })) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), name }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: 'offline' }, { kind: 'online' }, { kind: 'push' }) },
  { weight: 2, arbitrary: fc.constantFrom<Step>({ kind: 'lose-answer' }, { kind: 'crash' }) },
);

/** A worker id whose process does not exist: what a killed push leaves behind. */
const DEAD_WORKER = '2147483646:killed';

describe('command queue model', () => {
  it('random create/update/delete/offline/online/lost answers/crashes end with device and service agreeing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const api = await customersApi();
        const { runtime, store } = syncSetup(queueSolution(api.url));
        let online = true;
        let trap: 'lose-answer' | 'crash' | undefined;
        let abort: AbortController | undefined;
        api.intercept = (req, res) => {
          if (!trap || req.method === 'GET') return false;
          const kind = trap;
          trap = undefined;
          if (kind === 'lose-answer') {
            // Applied, then the answer is cut off.
            res.on('finish', () => res.socket?.destroy());
            const end = res.end.bind(res);
            res.end = ((...args: Parameters<typeof res.end>) => {
              res.socket?.destroy();
              return end(...args);
            }) as typeof res.end;
            return false;
          }
          abort?.abort();
          return false;
        };
        const ids = () => store.rows('customers').map((r) => String(r.id));
        const act = async (action: string, context: Record<string, unknown>) => {
          abort = new AbortController();
          try {
            await runtime.action(action, context, { signal: abort.signal, ignoreSchedule: true });
          } catch (error) {
            if (!abort.signal.aborted) throw error;
            // What a kill -9 leaves: the command still marked as being sent by a process that is gone.
            store.db
              .prepare(
                `UPDATE [${COMMAND_QUEUE_TABLE}] SET state = 'processing', worker = ? WHERE state = 'queued' AND attempts > 0`,
              )
              .run(DEAD_WORKER);
          }
        };

        for (const s of steps) {
          const local = ids();
          if (s.kind === 'create')
            await act('create-customer', screen(undefined, { name: s.name, region: 'eu' }));
          else if (s.kind === 'update' && local.length > 0)
            await act('update-customer', screen({ id: local[s.pick % local.length] }, { name: s.name }));
          else if (s.kind === 'delete' && local.length > 0)
            await act('delete-customer', screen({ id: local[s.pick % local.length] }));
          else if (s.kind === 'offline' && online) {
            await api.offline();
            online = false;
          } else if (s.kind === 'online' && !online) {
            await api.online();
            online = true;
          } else if (s.kind === 'push') await runtime.pushQueue({ ignoreSchedule: true });
          else if (s.kind === 'lose-answer' || s.kind === 'crash') trap = s.kind;
        }

        trap = undefined;
        if (!online) await api.online();
        for (let i = 0; i < 10 && runtime.queuedCommands().length > 0; i++) {
          await runtime.pushQueue({ ignoreSchedule: true });
        }
        expect(runtime.queuedCommands()).toEqual([]);
        const remote = [...api.customers.values()].sort((a, b) => String(a.id).localeCompare(String(b.id)));
        expect(store.rows('customers')).toEqual(remote);
        // A sync now changes nothing.
        await runtime.sync('customers');
        expect(store.rows('customers')).toEqual(remote);
      }),
      { numRuns: 60 },
    );
  });
});
