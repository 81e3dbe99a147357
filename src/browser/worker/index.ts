import type { CallContext } from '../../runtime/context.js';
import type { ClientOptions, Request, Response, WireError, WorkerEvent } from '../protocol.js';
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
    const opening =
      session ??
      openLease(options.database ?? options.solution).then((lease) =>
        Session.open(options, lease, {
          change: (tables) => post({ event: 'change', tables }),
          status: (status) => post({ event: 'status', status }),
        }),
      );
    session = opening;
    // A failed open may be tried again (the platform was down and no copy is kept yet).
    opening.catch(() => {
      if (session === opening) session = undefined;
    });
    return (await opening).status();
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
    case 'tablesRead':
      return s.tablesRead(args[0] as string);
    case 'signInStart':
      return s.signInStart(args[0] as string, args[1] as string);
    case 'signInFinish':
      return s.signInFinish(args[0] as string, args[1] as string);
    case 'signOut':
      return s.signOut(args[0] as string);
    case 'connectUrl':
      return s.connectUrl(args[0] as string, args[1] as string | undefined);
    case 'close':
      session = undefined;
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
