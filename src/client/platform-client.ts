import { type ErrorCode, isErrorCode } from '../errors/codes.js';
import { RestfnError, UsageError } from '../errors/restfn-error.js';

export const SERVER_ENV = 'RESTFN_SERVER';
export const TOKEN_ENV = 'RESTFN_TOKEN';

/** An error the platform answered: its own code (so the CLI exits as it would locally) and message. */
export class PlatformAnswerError extends RestfnError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly status: number,
    /** The rest of the answer (a refused publish's findings). */
    readonly answer: Readonly<Record<string, unknown>>,
  ) {
    super(code, message);
  }
}

/**
 * How every request to the platform goes: its redirects are not followed. A 307 or 308 would send
 * the body again to wherever it points (a password, a credential's secret, a call's parameters),
 * and any redirect would take the request off the address the user named; fetch drops only the
 * Authorization header on the way.
 */
export const NO_REDIRECTS = { redirect: 'manual' } as const;

/** A redirect's answer as the error it is (SERVER_ERROR), naming where it pointed; undefined for any other. */
export function redirectRefused(server: string, requestUrl: string, res: Response): RestfnError | undefined {
  // In a browser (the client's worker) a manual redirect is an opaque answer: no status, no location.
  if (res.type === 'opaqueredirect') {
    return new PlatformAnswerError(
      'SERVER_ERROR',
      `the platform at ${server} answered with a redirect: restfn does not follow a platform's redirects (what it sends would go there too); give the platform's own address as the client's server`,
      0,
      {},
    );
  }
  if (res.status < 300 || res.status > 399) return undefined;
  const location = res.headers.get('location');
  const to = location ? new URL(location, requestUrl).href : 'another address';
  return new PlatformAnswerError(
    'SERVER_ERROR',
    `the platform at ${server} answered ${res.status} and redirects to ${to}: restfn does not follow a platform's redirects (what it sends would go there too); if that is the platform, give its address with --server`,
    res.status,
    {},
  );
}

/** A platform's address as given to --server, checked: its href without a trailing slash. */
export function platformAddress(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `--server must be the platform's address, for example http://127.0.0.1:8080 (got '${url}')`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--server must be an http or https address (got '${url}')`);
  return parsed.href.replace(/\/$/, '');
}

/**
 * The device's client of the platform API: JSON over HTTP with an API token. Errors come back as
 * the platform's coded errors; a server that cannot be reached is `SERVER_UNREACHABLE`.
 */
export class PlatformClient {
  readonly url: string;

  constructor(
    url: string,
    private readonly token: string,
  ) {
    this.url = platformAddress(url);
  }

  /** From --server/--token, else RESTFN_SERVER/RESTFN_TOKEN. */
  static from(
    options: { server?: string; token?: string },
    env: NodeJS.ProcessEnv = process.env,
  ): PlatformClient {
    const server = options.server ?? env[SERVER_ENV];
    const token = options.token ?? env[TOKEN_ENV];
    if (!server)
      throw new UsageError(
        `which platform? pass --server URL, set ${SERVER_ENV}, or sign in once with 'restfn login --server URL'`,
      );
    if (!token)
      throw new UsageError(
        `the platform needs an API token: run 'restfn login --server URL', pass --token or set ${TOKEN_ENV} ('restfn tokens create' makes one)`,
      );
    return new PlatformClient(server, token);
  }

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        ...NO_REDIRECTS,
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new RestfnError(
        'SERVER_UNREACHABLE',
        `the platform at ${this.url} could not be reached${cause ? ` (${cause})` : ''}: is 'restfn serve' running there?`,
      );
    }
    const redirected = redirectRefused(this.url, `${this.url}${path}`, res);
    if (redirected) throw redirected;
    const text = await res.text();
    let answer: Record<string, unknown> = {};
    try {
      answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // Not the platform's JSON (a proxy's page): said below.
    }
    if (res.ok) return answer as T;
    const code = isErrorCode(answer.code) ? answer.code : 'SERVER_ERROR';
    const said =
      typeof answer.message === 'string'
        ? answer.message
        : `the platform answered ${res.status} ${res.statusText}`;
    // A per-user credential this user has not connected: how to do it from here.
    const connect =
      typeof answer.connectUrl === 'string'
        ? /\/solutions\/([^/]+)\/credentials\/([^/]+)\/connect$/.exec(answer.connectUrl)
        : null;
    const message = connect
      ? `${said}: run 'restfn connect ${decodeURIComponent(connect[2]!)} --server --name ${decodeURIComponent(connect[1]!)}' and open the address it prints`
      : said;
    throw new PlatformAnswerError(code, message, res.status, answer);
  }
}
