// Runs every benchmark in turn (npm run bench builds first).
await import('./validate.mjs');
