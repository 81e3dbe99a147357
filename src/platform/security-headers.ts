import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The security headers of every answer: helmet's defaults (a strict Content-Security-Policy,
 * X-Frame-Options, Strict-Transport-Security, nosniff...), as helmet's own middleware sets them,
 * recorded once at start. The defaults depend on nothing in a request.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: () => {},
  };
  let failure: unknown;
  helmet()({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure || !headers['content-security-policy'])
    throw new Error(`helmet set no Content-Security-Policy (${String(failure)})`);
  return Object.freeze(headers);
})();
