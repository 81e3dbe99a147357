import type { CredentialProvider } from '../auth/credential-provider.js';
import type { FunctionDefinition, ParameterDefinition } from '../definition/schema/index.js';
import type { Solution, SourceFile } from '../definition/solution.js';
import type { AlertCenter } from '../errors/alerts.js';
import type { ExpressionEnv } from '../expression/evaluate.js';
import type { AbortLike } from '../http/abort.js';
import type { Transport } from '../http/transport.js';
import type { FileStore } from '../local/files.js';
import type { LocalStore } from '../local/store.js';
import type { ExecutionContext } from './context.js';
import type { EventBus } from './events.js';
import type { NormalizedOptions } from './options.js';

// The shapes every step of an execution shares, in a module of their own: the steps (pipeline,
// call, reporting, writes, paging, sync, push) import these and never each other in a circle.

/** What one execution ends in when it does not throw. */
export type ExecutionResult =
  | {
      readonly status: 'ok';
      readonly output: unknown;
      readonly response: { readonly status: number; readonly headers: Readonly<Record<string, string>> };
      readonly correlationId: string;
      readonly durationMs: number;
    }
  | { readonly status: 'skipped'; readonly reason: string; readonly correlationId: string };

/** A response as the call step gives it back from elsewhere: credentials already masked. */
export interface RemoteResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * The call step made elsewhere (a device against the platform): the platform adds the credentials,
 * builds the body, sends the request and applies the error handlers and retries; the device does
 * everything before (parameters, queries, `when`, guard) and after (transforms, records, paging,
 * local tables, the queue). Failures come back as the same coded errors.
 */
export interface RemoteCalls {
  call(request: {
    readonly function: string;
    /** The parameter values the device resolved (credential parameters are the platform's). */
    readonly values: Readonly<Record<string, unknown>>;
    /** A continuation page: its url, and that the continuation's parameters apply. */
    readonly continuation?: { readonly url: string | undefined };
    /** What handlers may read of the call (`@ctx.entity`) and the queue's idempotency key. */
    readonly context: { readonly entity?: string; readonly commandId?: string };
    readonly correlationId: string;
    readonly signal?: AbortLike | undefined;
  }): Promise<RemoteResponse>;
}

/** Everything one execution needs from its runtime. */
export interface Engine {
  readonly solution: Solution;
  readonly options: NormalizedOptions;
  readonly transport: Transport;
  readonly credentials: CredentialProvider;
  readonly events: EventBus;
  /** The local database, for queries and table writes; absent in a runtime without one. */
  readonly store: LocalStore | undefined;
  /** The device file store for `local-uri` conversions. */
  readonly files: FileStore | undefined;
  readonly alerts: AlertCenter;
  /** Guardrails and script functions for every expression (the functions appear once `ready()` ran). */
  readonly expressions: ExpressionEnv;
  /** Where the call step runs instead of here (functions without `useLocalCall`); absent: here. */
  readonly remote?: RemoteCalls | undefined;
}

export type FunctionFile = SourceFile<'function'> & { readonly definition: FunctionDefinition };

/** A continuation call: its url (kept with its query), its parameters, and the previous page's context. */
export interface PageRequest {
  readonly url: string | undefined;
  readonly parameters: Readonly<Record<string, ParameterDefinition>>;
  readonly previous: ExecutionContext;
}

/** One execution with what the local-data steps after it need. */
export interface Execution {
  readonly result: ExecutionResult;
  readonly ctx: ExecutionContext;
  readonly file: FunctionFile;
  /** The guard stopped the function: its operations are to be written instead. */
  readonly guardFailed: boolean;
  /** The raw response body, for paging's repeated-page check. */
  readonly bytes?: Buffer;
}
