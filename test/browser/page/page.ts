// The test page: starts the worker and lets the test call it (`await rpc('op', ...args)`).

// No DOM types in this project: the page's few browser APIs are typed here.
interface PageWorker {
  onmessage: (event: MessageEvent) => void;
  postMessage(message: unknown): void;
}
const { Worker } = globalThis as unknown as {
  Worker: new (url: URL, options: { type: 'module' }) => PageWorker;
};

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let nextId = 0;

worker.onmessage = (event: MessageEvent) => {
  const { id, value, error } = event.data as { id: number; value?: unknown; error?: { message: string } };
  const call = waiting.get(id);
  waiting.delete(id);
  if (error) call?.reject(Object.assign(new Error(error.message), error));
  else call?.resolve(value);
};

(globalThis as unknown as { rpc: unknown }).rpc = (op: string, ...args: unknown[]) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
