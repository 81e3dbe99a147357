import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Subprocess and browser tests must pass on a loaded 2-core machine: a timeout here is a hang
    // detector, never a timing assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Rebuilds dist/ when a source is newer: the CLI tests run the build.
    globalSetup: ['test/global-setup.ts'],
  },
});
