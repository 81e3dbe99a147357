import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { PlatformError } from './errors.js';

/**
 * HTTP/1.1 pipelining, bounded. A client may write many requests on one connection without reading
 * an answer: Node parses every request of a packet at once and runs them all, and queues each
 * answer in memory (not in the socket) behind the one being written. Node stops reading once the
 * queued output passes the socket's high-water mark, but that comes too late: the requests already
 * parsed from one packet (a dozen, or hundreds of small ones) still run, and their answers wait.
 * So at most `MAX_REQUESTS_PER_CONNECTION` requests may be in flight on one connection (the one
 * being answered and those queued behind it); the next closes the connection, and that request and
 * any parsed after it do not run (pausing the parser would not stop those). Browsers, fetch, curl
 * and undici's default pools never pipeline: they send one request, read its answer, send the next.
 *
 * Node also closes (`close`) only the answer being written when a connection closes, not those
 * queued behind it, so nothing waiting on them would learn their client went away (their held
 * bytes never given back, their executions never stopped): here they are closed too, as Node
 * closes the first.
 */
export const MAX_REQUESTS_PER_CONNECTION = 4;

const IN_FLIGHT = Symbol('answers in flight');
type Connection = Socket & { [IN_FLIGHT]?: ServerResponse[] };

/** Counts each request's answer on its connection until it closes (an `onRequest` hook, first). */
export function boundPipelining(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    const socket = req.raw.socket as Connection;
    const res = reply.raw;
    let inFlight = socket[IN_FLIGHT];
    if (inFlight === undefined) {
      inFlight = [];
      socket[IN_FLIGHT] = inFlight;
      socket.once('close', closeQueued);
    }
    inFlight.push(res);
    // Static listeners (no closure per request): this runs before every request.
    res.on('close', answered);
    if (inFlight.length <= MAX_REQUESTS_PER_CONNECTION && !socket.destroyed) return done();
    // The answer is never read: the connection is gone (it goes to the log and the denied counts).
    socket.destroy();
    done(
      new PlatformError(
        'RATE_LIMITED',
        `more than ${MAX_REQUESTS_PER_CONNECTION} requests were sent on one connection without reading their answers (HTTP pipelining): the connection was closed; send a request once the previous answer arrived`,
      ),
    );
  });
}

/** An answer written out (Node closes it after `finish`) or closed with its connection. */
function answered(this: ServerResponse): void {
  const inFlight = (this.req.socket as Connection)[IN_FLIGHT];
  const at = inFlight?.indexOf(this) ?? -1;
  if (at >= 0) inFlight?.splice(at, 1);
}

/** The connection closed: the answers queued behind the one being written are closed too. */
function closeQueued(this: Connection): void {
  const inFlight = this[IN_FLIGHT];
  if (inFlight === undefined) return;
  for (const res of [...inFlight]) {
    if (res.closed) continue;
    // What Node does for the answer being written (`emitCloseNT` in _http_server.js): `closed`
    // reads `_closed`.
    const closing = res as ServerResponse & { _closed: boolean };
    closing.destroyed = true;
    closing._closed = true;
    res.emit('close');
  }
}
