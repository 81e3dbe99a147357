import type { Alert } from '../errors/alerts.js';

/** What an execution reports as it goes; the CLI, logs and the console consume these. */
export type ExecutionEvent =
  | {
      type: 'request';
      correlationId: string;
      function: string;
      method: string;
      url: string;
      headers: Record<string, string>;
      body?: string;
    }
  | {
      type: 'response';
      correlationId: string;
      function: string;
      status: number;
      durationMs: number;
      headers: Record<string, string>;
      /** The body as it may be shown: credentials masked, at most 64 KB, binary as a placeholder. */
      body: string;
    }
  | {
      type: 'retried';
      correlationId: string;
      function: string;
      attempt: number;
      delayMs: number;
      /** Why the decision was to retry (`429 Too Many Requests`, `network failure`, ...). */
      reason: string;
      /** What the attempt that failed got: `answered 503 Service Unavailable`, or the error's code and message. */
      cause: string;
    }
  | { type: 'skipped'; correlationId: string; function: string; reason: string }
  | { type: 'failed'; correlationId: string; function: string; code: string; message: string }
  | { type: 'succeeded'; correlationId: string; function: string; durationMs: number }
  | { type: 'alert'; correlationId: string; function: string; alert: Alert }
  /**
   * An expression script wrote with `console.*` (`function`: its `module.function`). Scripts are
   * the solution's, shared by its executions: no execution is named.
   */
  | {
      type: 'console';
      correlationId?: undefined;
      function: string;
      level: 'log' | 'info' | 'warn' | 'error' | 'debug';
      message: string;
    };

export type EventListener = (event: ExecutionEvent) => void;

/** Listeners with no cost when there are none (events are only built when someone listens). */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get active(): boolean {
    return this.listeners.size > 0;
  }

  emit(event: ExecutionEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
