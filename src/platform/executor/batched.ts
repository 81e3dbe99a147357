/**
 * Messages to another thread, posted together once this turn of the event loop has run its I/O
 * (`setImmediate`): each `postMessage` wakes the other thread's loop (a system call on both sides),
 * and under load the request thread starts several executions in one turn. Order is kept; the
 * other side takes a message or an array of them (`eachMessage`). Only the request thread batches
 * (its turns are short); a worker's turn may hold an author's transform, which its answers must
 * not wait for.
 *
 * A message `post` throws on (a value the structured clone refuses) must not take the others of
 * its batch with it, nor the process (the flush runs on its own, where a throw is uncaught and
 * ends the platform): the batch is posted again one by one, and each message that still fails is
 * given to `unsent`, whose caller answers it.
 */
export function batched<T>(
  post: (message: T | T[]) => void,
  unsent: (message: T, error: unknown) => void,
): (message: T) => void {
  let pending: T[] | undefined;
  const flush = () => {
    const batch = pending!;
    pending = undefined;
    try {
      post(batch.length === 1 ? batch[0]! : batch);
    } catch (error) {
      if (batch.length === 1) return unsent(batch[0]!, error);
      for (const message of batch) {
        try {
          post(message);
        } catch (alone) {
          unsent(message, alone);
        }
      }
    }
  };
  return (message) => {
    if (pending) pending.push(message);
    else {
      pending = [message];
      setImmediate(flush);
    }
  };
}

/** Each message of what `batched` posted. */
export function eachMessage<T>(received: T | T[], handle: (message: T) => void): void {
  if (Array.isArray(received)) for (const message of received) handle(message);
  else handle(received);
}
