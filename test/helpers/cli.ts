import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The CLI as installed: the bundle `npm run build` writes (scripts/build-cli.mjs). */
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'restfn.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface CliOptions {
  /** Another restfn.js than the checkout's bundle (an installed package's). */
  cli?: string;
  cwd?: string;
  input?: string;
  env?: Record<string, string>;
}

/** Runs the built CLI as a subprocess (`npm test` builds first), optionally feeding stdin. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Starts the built CLI and hands back the process, for tests that signal it mid-way (SIGINT). */
export function startCli(
  args: string[],
  options: CliOptions = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  child.stdin.end(options.input ?? '');
  return { child, done };
}
