import { CredentialError } from '../errors/credential-error.js';
import { NetworkError, RemoteError, type RequestSummary, TimeoutError } from '../http/errors.js';
import type { RemoteCalls, RemoteResponse } from '../runtime/engine.js';
import { PlatformAnswerError, PlatformClient, SERVER_ENV, TOKEN_ENV } from './platform-client.js';

/**
 * The device's side of `RemoteCalls`: the call step of each function (without `useLocalCall`) goes
 * to the platform's `POST .../functions/{f}/call` of `solution`. The platform's failures become the
 * errors the call step would have thrown here, so retries, the queue and exit codes treat them
 * alike: the service's error status is a `RemoteError` with that status; a platform that cannot be
 * reached is a network failure (offline: queued commands wait).
 */
export function platformCalls(client: PlatformClient, solution: string): RemoteCalls {
  const base = `/api/v1/solutions/${encodeURIComponent(solution)}/functions`;
  return {
    async call(request) {
      const summary: RequestSummary = {
        method: 'POST',
        url: `${client.url}${base}/${request.function}/call`,
      };
      try {
        return await client.request<RemoteResponse>(
          'POST',
          `${base}/${encodeURIComponent(request.function)}/call`,
          {
            values: request.values,
            context: request.context,
            correlationId: request.correlationId,
            ...(request.continuation
              ? { continuation: { ...(request.continuation.url ? { url: request.continuation.url } : {}) } }
              : {}),
          },
        );
      } catch (error) {
        throw asCallError(error, summary);
      }
    },
  };
}

function asCallError(error: unknown, summary: RequestSummary): unknown {
  // The platform refused this device (its token), not the command: like a credential that needs a
  // login, every call would fail alike, so queued commands wait instead of failing for good.
  if (
    error instanceof PlatformAnswerError &&
    (error.code === 'AUTH_REQUIRED' || error.code === 'FORBIDDEN')
  ) {
    return new CredentialError(
      error.code,
      `the platform refused this device: ${error.message} (check RESTFN_TOKEN, --token or the credential platform-token)`,
    );
  }
  if (!(error instanceof PlatformAnswerError)) {
    const code = (error as { code?: string }).code;
    return code === 'SERVER_UNREACHABLE'
      ? new NetworkError(summary, 'ECONNREFUSED', (error as Error).message, error)
      : error;
  }
  const answer = error.answer as {
    remoteStatus?: number;
    title?: string;
    description?: string;
    details?: string;
    correlationId?: string;
    alert?: unknown;
  };
  let mapped: RemoteError | TimeoutError | NetworkError | undefined;
  if (error.code === 'REMOTE_ERROR' && typeof answer.remoteStatus === 'number') {
    mapped = new RemoteError(summary, {
      status: answer.remoteStatus,
      statusText: '',
      headers: {},
      body: answer.details ?? null,
    });
    mapped.message = error.message;
  } else if (error.code === 'TIMEOUT') {
    mapped = new TimeoutError(summary, 'request', 0, error);
    mapped.message = error.message;
  } else if (error.code === 'NETWORK_ERROR') {
    mapped = new NetworkError(summary, undefined, error.message, error);
    mapped.message = error.message;
  }
  if (!mapped) return error;
  mapped.title = answer.title;
  mapped.description = answer.description;
  mapped.correlationId = answer.correlationId;
  mapped.report({ details: answer.details, detailsFrom: 'response', alert: answer.alert });
  return mapped;
}

export { PlatformClient, SERVER_ENV, TOKEN_ENV };
