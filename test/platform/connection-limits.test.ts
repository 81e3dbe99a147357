import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AddressCounts,
  defaultMaxConnections,
  trustedAddresses,
} from '../../src/platform/connection-limits.js';
import { startPlatformProcess } from '../helpers/platform.js';

describe('connection limits (pure parts)', () => {
  it('count connections per address, give them back, and leave trusted proxies out', () => {
    const trusted = trustedAddresses(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
    expect(['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.7', 'fd00::1'].map(trusted)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['11.0.0.1', '192.168.1.8', '::1', '127.0.0.1'].map(trusted)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(trustedAddresses([])('10.0.0.1')).toBe(false);

    const counts = new AddressCounts(2, trusted);
    expect([counts.admit('1.1.1.1'), counts.admit('1.1.1.1'), counts.admit('1.1.1.1')]).toEqual([
      true,
      true,
      false,
    ]);
    // Another address has its own count; a proxy has none.
    expect(counts.admit('2.2.2.2')).toBe(true);
    for (let i = 0; i < 10; i++) expect(counts.admit('10.0.0.1')).toBe(true);
    counts.leave('1.1.1.1');
    expect(counts.admit('1.1.1.1')).toBe(true);
    expect(counts.admit('1.1.1.1')).toBe(false);
  });

  it('default to half the open-file limit, at most 10,000', () => {
    expect(defaultMaxConnections(20_000)).toBe(10_000);
    expect(defaultMaxConnections(1024)).toBe(512);
    expect(defaultMaxConnections(1_048_576)).toBe(10_000);
    expect(defaultMaxConnections(undefined)).toBe(4096);
  });
});

/** A connection from `localAddress` that sends half a request's headers and waits. */
function halfHeader(url: string, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n`);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

const closed = (socket: Socket) =>
  socket.closed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve()));

/** GET /healthz from `localAddress`: the status, or the error's code when the connection was closed. */
function healthz(url: string, localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

describe('restfn serve holds connections to its limits', () => {
  it('closes connections from one address past --max-connections-per-address; other addresses and trusted proxies are served', async () => {
    const platform = await startPlatformProcess({
      args: ['--max-connections-per-address', '20', '--trust-proxy', '127.0.0.3'],
    });
    const flood: Socket[] = [];
    for (let i = 0; i < 30; i++) {
      const socket = await halfHeader(platform.url, '127.0.0.1');
      socket.on('error', () => undefined);
      flood.push(socket);
    }
    // The ten past the limit are closed by the server (the first twenty wait for their headers).
    let closedCount = 0;
    await new Promise<void>((resolve) => {
      for (const socket of flood)
        void closed(socket).then(() => {
          if (++closedCount === 10) resolve();
        });
    });
    expect(flood.slice(0, 20).every((s) => !s.closed)).toBe(true);
    // A request from the same address is refused while they are held...
    expect(await healthz(platform.url, '127.0.0.1')).not.toBe(200);
    // ...one from another address gets its answer.
    expect(await healthz(platform.url, '127.0.0.2')).toBe(200);

    // A trusted proxy's connections are everyone's: 30 at once, each answered.
    const proxied: Socket[] = [];
    for (let i = 0; i < 30; i++) proxied.push(await halfHeader(platform.url, '127.0.0.3'));
    const answers = await Promise.all(
      proxied.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.on('data', (chunk) => {
              text += chunk;
              if (text.includes('"status":"ok"')) resolve(text);
            });
            socket.write('Connection: close\r\n\r\n');
          }),
      ),
    );
    expect(answers.every((text) => text.startsWith('HTTP/1.1 200'))).toBe(true);

    // Once the flood goes, the address is served again.
    for (const socket of flood) socket.destroy();
    await Promise.all(flood.map(closed));
    let status: number | string = 0;
    // The server sees the closes a moment after this side: ask until it has.
    while (status !== 200) status = await healthz(platform.url, '127.0.0.1');
    expect(status).toBe(200);
  }, 60_000);

  it('closes connections past --max-connections, whatever their address', async () => {
    const platform = await startPlatformProcess({
      args: ['--max-connections', '5', '--headers-timeout-ms', '600000'],
    });
    const held: Socket[] = [];
    for (let i = 0; i < 5; i++) held.push(await halfHeader(platform.url, `127.0.0.${i + 1}`));
    const sixth = await halfHeader(platform.url, '127.0.0.9');
    sixth.on('error', () => undefined);
    await closed(sixth);
    expect(held.every((s) => !s.closed)).toBe(true);
    for (const socket of held) socket.destroy();
  }, 30_000);

  it('closes a connection that does not send its headers within --headers-timeout-ms', async () => {
    const platform = await startPlatformProcess({ args: ['--headers-timeout-ms', '300'] });
    const socket = await halfHeader(platform.url, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', () => undefined);
    await closed(socket);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(await healthz(platform.url, '127.0.0.1')).toBe(200);
  }, 30_000);
});
