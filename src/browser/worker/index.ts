import type { CallContext } from '../../runtime/context.js';
import type { ClientOptions, ClientStatus, Request, Response, WireError, WorkerEvent } from '../protocol.js';
import { credentialOf } from './credential-of.js';
import { openLease } from './lease.js';
import { Session } from './session.js';

// The client's worker: it owns the SQLite database (WebAssembly, OPFS) and the runtime, and answers
// the page's requests one message each (protocol.ts).

declare const self: {
  onmessage: ((event: { data: Request }) => void) | null;
  postMessage(message: Response | WorkerEvent): void;
};

let session: Promise<Session> | undefined;
/**
 * The app's other tabs' workers: after each write, each tells the others the tables it wrote and the
 * queue's length (one database, shared), so their live queries and queue badges follow.
 */
let tabs: BroadcastChannel | undefined;
interface TabNews {
  readonly tables: readonly string[];
  readonly queued: number;
}
/** This tab's last status, and the tables written since it was sent. */
let last: ClientStatus | undefined;
let written: readonly string[] = [];

const post = (message: Response | WorkerEvent) => self.postMessage(message);

self.onmessage = (event) => {
  const { id, method, args } = event.data;
  void answer(method, args).then(
    (result) => post({ id, result }),
    (error: unknown) => post({ id, error: wireError(error) }),
  );
};

async function answer(method: Request['method'], args: readonly unknown[]): Promise<unknown> {
  if (method === 'open') {
    const options = args[0] as ClientOptions;
    const name = options.database ?? options.solution;
    const opening =
      session ??
      openLease(name).then((lease) =>
        Session.open(options, lease, {
          change: (tables) => {
            post({ event: 'change', tables });
            written = tables;
          },
          status: (status) => {
            post({ event: 'status', status });
            last = status;
            tabs?.postMessage({ tables: written, queued: status.queued } satisfies TabNews);
            written = [];
          },
        }),
      );
    session = opening;
    if (!tabs && typeof BroadcastChannel === 'function') {
      tabs = new BroadcastChannel(`restfn-changes-${name}`);
      // Another tab wrote: this tab's live queries on those tables read again, its status counts the queue.
      tabs.onmessage = (event: MessageEvent<TabNews>) => {
        const { tables, queued } = event.data;
        if (tables.length > 0) post({ event: 'change', tables });
        if (last && last.queued !== queued) {
          last = { ...last, queued };
          post({ event: 'status', status: last });
        }
      };
    }
    // A failed open may be tried again (the platform was down and no copy is kept yet).
    opening.catch(() => {
      if (session === opening) session = undefined;
    });
    last = await (await opening).status();
    return last;
  }
  if (!session)
    throw Object.assign(new Error('the client is not open: await createClient(...) first'), {
      code: 'USAGE',
    });
  const s = await session;
  switch (method) {
    case 'status':
      return s.status();
    case 'sync':
      return s.sync(args[0] as string, args[1] as CallContext);
    case 'query':
      return s.query(args[0] as string, args[1] as Record<string, unknown>);
    case 'rows':
      return s.rows(args[0] as string, args[1] as CallContext);
    case 'action':
      return s.action(args[0] as string, args[1] as CallContext);
    case 'queuedCommands':
      return s.queuedCommands();
    case 'pushQueue':
      return s.pushQueue();
    case 'signInStart':
      return s.signInStart(args[0] as string, args[1] as string);
    case 'signInFinish':
      return s.signInFinish(args[0] as string, args[1] as string);
    case 'signOut':
      return s.signOut(args[0] as string);
    case 'connectUrl':
      return s.connectUrl(args[0] as string, args[1] as string | undefined);
    case 'network':
      return s.network(args[0] === true);
    case 'watch':
      return s.watch(args[0] as string, args[1] as Record<string, unknown>);
    case 'close':
      session = undefined;
      tabs?.close();
      tabs = undefined;
      return s.close();
  }
}

/** The error as data: restfn's errors keep their code; anything else is INTERNAL with its message. */
function wireError(error: unknown): WireError {
  const e = error as { name?: string; code?: unknown; message?: string };
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL';
  const credential = credentialOf(error);
  return {
    name: e?.name ?? 'Error',
    code,
    // The platform's words for a missing connection name the CLI: the app's way is client.connect.
    message:
      code === 'CONNECTION_REQUIRED' && credential !== undefined
        ? `credential '${credential}' calls as each user, and this user has no connection for it (or the provider refused it): call client.connect('${credential}')`
        : (e?.message ?? String(error)),
    ...(credential !== undefined ? { credential } : {}),
  };
}
