// Issue 41's /metrics figures: a platform with 1,000 solutions x 20 functions of series
// (bench/metrics-server.mjs, its own process), scraped while /healthz is asked in a closed loop.
// Reported: the server's CPU time per scrape (the render and the writing), and the slowest
// /healthz during scrapes against the slowest /healthz with no scrape (rounds interleaved; the
// median of the rounds' maxima). A render that holds the request thread for 250 ms makes every
// request wait as long; one that yields between slices adds a slice.
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meets, printFigure, QUICK } from './figures.mjs';
import { cpuMs, median } from './lib.mjs';

const SOLUTIONS = 1000;
const FUNCTIONS = 20;
const ROUNDS = QUICK ? 5 : 15;
const SCRAPES = QUICK ? 3 : 5;
const TOKEN = 'rfn_bench_0123456789abcdefghijklmnopqrstuvwxyz';

const work = mkdtempSync(join(tmpdir(), 'restfn-bench-metrics-'));
mkdirSync(join(work, 'data'));
const server = fork(join(import.meta.dirname, 'metrics-server.mjs'), [
  join(work, 'data'),
  TOKEN,
  String(SOLUTIONS),
  String(FUNCTIONS),
  ...process.argv.slice(2),
]);
try {
  const { url } = await new Promise((resolve, reject) => {
    server.once('message', resolve);
    server.once('exit', (code) => reject(new Error(`the metrics server exited ${code}`)));
  });
  const headers = { authorization: `Bearer ${TOKEN}` };
  const scrape = async () => {
    const answer = await fetch(`${url}/metrics`, { headers });
    if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`);
    return answer.text();
  };
  const scraper = fork(join(import.meta.dirname, 'metrics-scraper.mjs'));
  /** `count` scrapes one after the other, from bench/metrics-scraper.mjs. */
  const scrapes = (count) =>
    new Promise((resolve) => {
      scraper.once('message', resolve);
      scraper.send({ url: `${url}/metrics`, headers, count });
    });
  /** /healthz in a closed loop until `until` settles; the latencies in ms. */
  const probe = async (until) => {
    let done = false;
    until.finally(() => {
      done = true;
    });
    const times = [];
    while (!done) {
      const started = performance.now();
      const answer = await fetch(`${url}/healthz`);
      await answer.arrayBuffer();
      times.push(performance.now() - started);
    }
    return times;
  };
  const text = await scrape();
  await scrapes(1);
  const lines = text.split('\n').length;
  // Warm-up: the render's and the probe's code compiled.
  for (let i = 0; i < 3; i++) await scrape();
  /** The longest the server's request thread was held since the last ask. */
  const loopMax = () =>
    new Promise((resolve) => {
      server.once('message', (m) => resolve(m.loopMaxMs));
      server.send('loop');
    });
  const loopIdle = [];
  const loopScrape = [];
  const idleMax = [];
  const scrapeMax = [];
  const cpuPerScrape = [];
  const wallPerScrape = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Idle: as long as the scrapes take, measured as a fixed number of probes.
    await loopMax();
    const idle = await probe(new Promise((resolve) => setTimeout(resolve, 150)));
    loopIdle.push(await loopMax());
    const before = cpuMs(server.pid);
    const started = performance.now();
    const scraping = scrapes(SCRAPES);
    const during = await probe(scraping);
    await scraping;
    loopScrape.push(await loopMax());
    wallPerScrape.push((performance.now() - started) / SCRAPES);
    cpuPerScrape.push((cpuMs(server.pid) - before) / SCRAPES);
    idleMax.push(Math.max(...idle));
    scrapeMax.push(Math.max(...during));
  }
  const cpu = median(cpuPerScrape);
  const ratio = median(scrapeMax) / median(idleMax);
  console.log(
    `${SOLUTIONS} solutions x ${FUNCTIONS} functions: /metrics ${(text.length / 1e6).toFixed(1)} MB, ${lines} lines; ${ROUNDS} rounds of ${SCRAPES} scrapes`,
  );
  console.log(
    `scrape: ${cpu.toFixed(0)} ms server CPU (with the probes' share), ${median(wallPerScrape).toFixed(0)} ms wall; /healthz max ${median(scrapeMax).toFixed(1)} ms during scrapes vs ${median(idleMax).toFixed(1)} ms idle; the server's request thread held at most ${median(loopScrape).toFixed(1)} ms during scrapes vs ${median(loopIdle).toFixed(1)} ms idle`,
  );
  printFigure({
    id: 'metrics-scrape-cpu',
    label: 'GET /metrics of 1,000 x 20 series, server CPU per scrape, ms',
    ratio: cpu,
    target: '< 60 ms',
    unit: 'ms',
    met: meets(cpu, '< 60'),
    detail: `${(text.length / 1e6).toFixed(1)} MB, ${lines} lines; median of ${ROUNDS} rounds (${cpuPerScrape.map((v) => v.toFixed(0)).join(', ')}), /healthz probes included; wall ${median(wallPerScrape).toFixed(0)} ms`,
  });
  printFigure({
    id: 'metrics-healthz-during-scrape',
    label: 'slowest /healthz during scrapes of 1,000 x 20 series / slowest /healthz alone',
    ratio,
    target: '< 2',
    met: meets(ratio, '< 2'),
    detail: `median of ${ROUNDS} rounds' maxima: ${median(scrapeMax).toFixed(1)} vs ${median(idleMax).toFixed(1)} ms; during ${scrapeMax.map((v) => v.toFixed(1)).join(', ')}; idle ${idleMax.map((v) => v.toFixed(1)).join(', ')}; the server's longest event-loop delay ${median(loopScrape).toFixed(1)} ms during scrapes vs ${median(loopIdle).toFixed(1)} ms idle`,
  });
  scraper.disconnect();
} finally {
  server.disconnect();
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(work, { recursive: true, force: true });
}
