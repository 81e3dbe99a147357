import type { Method, Request, Response, WireError, WorkerEvent } from '../protocol.js';

/** A failure the worker answered: restfn's stable `code`, and the credential it concerns, if any. */
export class RestfnClientError extends Error {
  readonly code: string;
  readonly credential: string | undefined;

  constructor(error: WireError) {
    super(error.message);
    this.name = 'RestfnClientError';
    this.code = error.code;
    this.credential = error.credential;
  }
}

/** Requests to the worker, each answered once; events to `onEvent`. */
export class WorkerChannel {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  constructor(
    private readonly worker: Worker,
    onEvent: (event: WorkerEvent) => void,
  ) {
    worker.onmessage = (message: MessageEvent<Response | WorkerEvent>) => {
      const data = message.data;
      if ('event' in data) return onEvent(data);
      const pending = this.waiting.get(data.id);
      if (!pending) return;
      this.waiting.delete(data.id);
      if ('error' in data) pending.reject(new RestfnClientError(data.error));
      else pending.resolve(data.result);
    };
    worker.onerror = (event: ErrorEvent) => {
      const error = new RestfnClientError({
        name: 'Error',
        code: 'INTERNAL',
        message: `the client's worker failed: ${event.message}`,
      });
      for (const pending of this.waiting.values()) pending.reject(error);
      this.waiting.clear();
    };
  }

  call<T>(method: Method, ...args: unknown[]): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, method, args } satisfies Request);
    });
  }

  terminate(): void {
    this.worker.terminate();
  }
}
