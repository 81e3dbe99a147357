// bench/metrics.mjs's Prometheus: asked for `count` scrapes of `url`, it reads each one and drops
// it as it comes, then says `done`. Its own process: reading 6 MB in the probing one would delay
// the probes' answers there, not on the server.
process.on('message', async ({ url, headers, count }) => {
  for (let i = 0; i < count; i++) {
    const answer = await fetch(url, { headers });
    if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`);
    for await (const _chunk of answer.body);
  }
  process.send('done');
});
