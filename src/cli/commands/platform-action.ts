import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { PlatformAnswerError, type PlatformClient } from '../../client/platform-client.js';
import {
  definitionFiles,
  KIND_FOLDERS,
  loadSolution,
  SCRIPTS_FOLDER,
  SOLUTION_FILE,
} from '../../definition/solution.js';
import { validateSolution } from '../../definition/validate.js';
import { DefinitionError } from '../../errors/definition-error.js';
import { UsageError } from '../../errors/restfn-error.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { resolveIdPrefix } from '../id-prefix.js';
import { type Column, printRecord, printRows, status } from '../output.js';
import { platformClient } from '../platform-logins.js';
import { counted } from '../plural.js';
import { readSecret } from '../read-secret.js';
import { unseenFindings } from '../server-findings.js';
import { solutionDir } from '../solution-dir.js';
import type { ServerOptions } from './platform.js';

/** `--server [url]` as every platform command takes it: a bare `--server` means RESTFN_SERVER (else the last login's). */
function clientFor(options: ServerOptions): PlatformClient {
  return platformClient(options);
}

/** The files of the solution at `root` as the platform takes them: relative paths with '/'. */
export function solutionUpload(root: string): Record<string, string> {
  const paths: string[] = [];
  if (existsSync(join(root, SOLUTION_FILE))) paths.push(join(root, SOLUTION_FILE));
  for (const folder of Object.values(KIND_FOLDERS)) paths.push(...definitionFiles(join(root, folder)));
  const scripts = join(root, SCRIPTS_FOLDER);
  if (existsSync(scripts)) {
    for (const entry of readdirSync(scripts).sort()) {
      const path = join(scripts, entry);
      if (entry.endsWith('.js') && statSync(path).isFile()) paths.push(path);
    }
  }
  return Object.fromEntries(
    paths.map((p) => [relative(root, p).split(sep).join('/'), readFileSync(p, 'utf8')]),
  );
}

/** `restfn publish`: validated here first (nothing is sent with errors), then again by the server. */
export async function publish(options: ServerOptions & { solution?: string }): Promise<void> {
  const client = clientFor(options);
  const solution = loadSolution(solutionDir(options.solution));
  const { diagnostics, errors } = await validateSolution(solution);
  for (const d of diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
  if (errors > 0) {
    throw new DefinitionError(
      `solution '${solution.name}' has ${counted(errors, 'error')}; fix them first, nothing was published`,
      diagnostics,
    );
  }
  const files = solutionUpload(solution.root);
  // The server's own findings (its ceilings' SETTING_CAPPED; a newer restfn there may know more
  // rules), refused or published, in the same format: those not printed above.
  const printServers = (findings: unknown) => {
    for (const d of unseenFindings(findings, diagnostics, solution.root))
      process.stderr.write(`${diagnosticLine(d)}\n`);
  };
  let answer: { version: number; unchanged: boolean; findings?: unknown };
  try {
    answer = await client.request('PUT', `/api/v1/solutions/${encodeURIComponent(solution.name)}`, { files });
  } catch (error) {
    if (error instanceof PlatformAnswerError) printServers(error.answer.findings);
    throw error;
  }
  printServers(answer.findings);
  status(
    `${answer.unchanged ? `solution '${solution.name}' is unchanged: version ${answer.version} stays current` : `published solution '${solution.name}' as version ${answer.version}`} on ${client.url}`,
  );
  const report = {
    solution: solution.name,
    version: answer.version,
    unchanged: answer.unchanged,
    files: Object.keys(files).length,
  };
  printRecord(options.format, report, [
    ['SOLUTION', (r) => r.solution],
    ['VERSION', (r) => r.version],
    // The JSON keeps `unchanged: true|false`; a person reads what happened.
    ['RESULT', (r) => (r.unchanged ? `unchanged: still v${r.version}` : `published v${r.version}`)],
    ['FILES', (r) => r.files],
  ]);
}

interface User {
  readonly name: string;
  readonly role: string;
  readonly solutions: readonly string[];
}

const USER_COLUMNS: ReadonlyArray<Column<User>> = [
  ['NAME', (u) => u.name],
  ['ROLE', (u) => u.role],
  ['SOLUTIONS', (u) => u.solutions],
];

export async function addUser(
  name: string,
  options: ServerOptions & { role: string; solution: string[]; withPassword?: boolean },
): Promise<void> {
  const client = clientFor(options);
  const password = options.withPassword ? await readSecret(`password for ${name}`) : undefined;
  const user = await client.request<User>('POST', '/api/v1/users', {
    name,
    role: options.role,
    solutions: options.solution,
    ...(password !== undefined ? { password } : {}),
  });
  if (password !== undefined) status(`added user '${name}' with a console password`);
  printRecord(options.format, user, USER_COLUMNS);
}

export async function setUser(
  name: string,
  options: ServerOptions & { role?: string; solution?: string[]; withPassword?: boolean },
): Promise<void> {
  const client = clientFor(options);
  const password = options.withPassword ? await readSecret(`new password for ${name}`) : undefined;
  const change = {
    ...(options.role ? { role: options.role } : {}),
    ...(options.solution ? { solutions: options.solution } : {}),
    ...(password !== undefined ? { password } : {}),
  };
  if (Object.keys(change).length === 0) {
    throw new UsageError('say what to change: --role, --solution or --with-password');
  }
  const user = await client.request<User>('PATCH', `/api/v1/users/${encodeURIComponent(name)}`, change);
  // The table shows no password: what changed is said, the password never.
  status(`updated user '${name}': ${userChanges(change).join(', ')}`);
  printRecord(options.format, user, USER_COLUMNS);
}

/** What a `users set` changed, as a person reads it. */
export function userChanges(change: { role?: string; solutions?: string[]; password?: string }): string[] {
  return [
    ...(change.role ? [`role ${change.role}`] : []),
    ...(change.solutions
      ? [change.solutions.length > 0 ? `solutions ${change.solutions.join(', ')}` : 'no solutions']
      : []),
    ...(change.password !== undefined ? ['console password set'] : []),
  ];
}

export async function removeUser(name: string, options: ServerOptions): Promise<void> {
  await clientFor(options).request('DELETE', `/api/v1/users/${encodeURIComponent(name)}`);
  status(`removed user '${name}' and their tokens`);
}

export async function listUsers(options: ServerOptions): Promise<void> {
  const { users } = await clientFor(options).request<{ users: User[] }>('GET', '/api/v1/users');
  printRows(options.format, users, USER_COLUMNS, 'no users');
}

export async function createToken(user: string, options: ServerOptions & { name: string }): Promise<void> {
  const made = await clientFor(options).request<{ id: string; token: string }>(
    'POST',
    `/api/v1/users/${encodeURIComponent(user)}/tokens`,
    { name: options.name },
  );
  // The id is how `tokens list`/`revoke` name it; said so, so it is not taken for the token itself.
  status(
    `created a token for '${user}' (token id: ${made.id}, not the token); the token itself is on standard output: it is shown this once, store it now`,
  );
  process.stdout.write(`${made.token}\n`);
}

export async function listTokens(user: string, options: ServerOptions): Promise<void> {
  const { tokens } = await clientFor(options).request<{ tokens: Array<Record<string, unknown>> }>(
    'GET',
    `/api/v1/users/${encodeURIComponent(user)}/tokens`,
  );
  printRows(
    options.format,
    tokens,
    [
      ['ID', (t) => t.id],
      ['NAME', (t) => t.name],
      ['CREATED', (t) => t.created],
      ['REVOKED', (t) => t.revoked],
    ],
    `'${user}' has no tokens`,
  );
}

export async function revokeToken(user: string, given: string, options: ServerOptions): Promise<void> {
  const client = clientFor(options);
  const base = `/api/v1/users/${encodeURIComponent(user)}/tokens`;
  // A unique start of the id will do, as in git (tokens list shows the whole ids).
  const { tokens } = await client.request<{ tokens: Array<{ id: string }> }>('GET', base);
  const id = resolveIdPrefix(
    given,
    tokens.map((t) => t.id),
    'token',
  );
  await client.request('DELETE', `${base}/${encodeURIComponent(id)}`);
  status(`revoked token ${id}`);
}

interface AllowedTarget {
  readonly solution: string;
  readonly host: string;
  readonly from: 'flag' | 'api';
}

const TARGET_COLUMNS: ReadonlyArray<Column<AllowedTarget>> = [
  ['SOLUTION', (t) => t.solution],
  ['HOST', (t) => t.host],
  ['FROM', (t) => (t.from === 'flag' ? '--allow-target' : 'targets add')],
];

export async function listTargets(options: ServerOptions): Promise<void> {
  const answer = await clientFor(options).request<{ allowPrivateTargets: boolean; targets: AllowedTarget[] }>(
    'GET',
    '/api/v1/targets',
  );
  if (answer.allowPrivateTargets)
    status('the platform runs with --allow-private-targets: every solution may call any private host');
  printRows(options.format, answer.targets, TARGET_COLUMNS, 'no private targets are allowed');
}

export async function addTarget(solution: string, host: string, options: ServerOptions): Promise<void> {
  const client = clientFor(options);
  const added = await client.request<AllowedTarget & { added: boolean }>('POST', '/api/v1/targets', {
    solution,
    host,
  });
  status(
    added.added
      ? `solution '${solution}' may call ${added.host} on ${client.url} from now on`
      : `solution '${solution}' could call ${added.host} already`,
  );
  printRecord(options.format, added, TARGET_COLUMNS);
}

export async function removeTarget(solution: string, host: string, options: ServerOptions): Promise<void> {
  const client = clientFor(options);
  const removed = await client.request<AllowedTarget>(
    'DELETE',
    `/api/v1/targets/${encodeURIComponent(solution)}/${encodeURIComponent(host)}`,
  );
  status(`solution '${solution}' may no longer call ${removed.host} on ${client.url}`);
}
