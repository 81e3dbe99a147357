// A closed-loop HTTP load: `connections` clients, each sending its next request when the last one
// was answered, spread round-robin over `urls`, until `amount` requests were answered. Timed to the
// millisecond from the first request to the last answer (autocannon's `amount` runs end on its
// one-second ticks: 4,000 requests read as 2,000/s whether they took 1.1 s or 1.9 s).
import { Pool } from 'undici';

/**
 * `path` may be a function of the request's number (requests spread over many addresses).
 * @param {{ urls: string[], path: string | ((i: number) => string), method?: string, headers?: Record<string, string>,
 *   body?: string, connections: number, amount: number }} options
 * @returns {Promise<{ perSecond: number, p50: number, p99: number, non2xx: number }>}
 */
export async function load({ urls, path, method = 'POST', headers = {}, body, connections, amount }) {
  const pools = urls.map((url) => new Pool(url, { connections: Math.ceil(connections / urls.length) }));
  const latencies = [];
  let next = 0;
  let non2xx = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: connections }, async (_, client) => {
        for (let i = next++; i < amount; i = next++) {
          const pool = pools[(i + client) % pools.length];
          const t = performance.now();
          const res = await pool.request({
            path: typeof path === 'function' ? path(i) : path,
            method,
            headers,
            body,
          });
          await res.body.dump();
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
          latencies.push(performance.now() - t);
        }
      }),
    );
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { perSecond: amount / seconds, p50: at(0.5), p99: at(0.99), non2xx };
}
