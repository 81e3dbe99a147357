import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The console is served by `restfn serve` at /console/, same origin as the API; built into
// dist/console by `npm run build` (no CDN, nothing fetched at run time).
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact()],
  build: { outDir: '../dist/console', emptyOutDir: true, sourcemap: false },
  logLevel: 'warn',
});
