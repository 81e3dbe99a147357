// Runs every benchmark in turn (npm run bench builds first). One can be run alone: node bench/NAME.mjs
await import('./validate.mjs');
await import('./execute.mjs');
await import('./regex.mjs');
await import('./sync.mjs');
