import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isValidFileName, suggestFileName } from '../../definition/naming.js';
import { findSolutionRoot, loadSolution, SOLUTION_FILE } from '../../definition/solution.js';
import { printable } from '../../errors/printable.js';
import { UsageError } from '../../errors/restfn-error.js';
import { checkFiles } from '../../import/check.js';
import { ImportError } from '../../import/errors.js';
import type { ImportedCredential, ImportedDescription } from '../../import/model.js';
import {
  type ImportPlan,
  operationLabel,
  type PlannedFile,
  planImport,
  recordedSource,
} from '../../import/plan.js';
import { readSource } from '../../import/source.js';
import { ImportVariables } from '../../import/variables.js';
import { diagnosticLine } from '../diagnostic-line.js';
import { isJson, printReport, status, warn } from '../output.js';
import type { ImportOptions } from './import.js';

/** `restfn import FILE`: reads the description, plans, validates, prints the plan, writes. */
export async function importDescription(file: string, options: ImportOptions): Promise<void> {
  const json = isJson(options.format);
  const out = lines(json);
  const vars = new ImportVariables(options.var, options.vars);
  const prefix = options.prefix;
  if (prefix !== '' && !isValidFileName(prefix)) {
    throw new UsageError(
      `--prefix '${prefix}' cannot start a function name: use lowercase letters, digits and '-' (or "" for none)`,
      'INVALID_NAME',
    );
  }
  const source = readSource(file);
  const description: ImportedDescription =
    source.format === 'postman'
      ? (await import('../../import/postman.js')).readPostman(source, vars)
      : await (await import('../../import/openapi.js')).readOpenApi(source, vars);
  vars.throwIfMissing();
  if (description.operations.length === 0) {
    const skipped =
      description.skipped.length > 0
        ? ` (${description.skipped.length} skipped: ${description.skipped[0]!.reason})`
        : '';
    throw new ImportError(
      'IMPORT_NO_OPERATIONS',
      `${file} has no operation restfn can import${skipped}; nothing to write`,
    );
  }
  for (const name of vars.unused()) {
    warn(`--var ${name} is not used by ${file}`);
  }

  const root = resolve(options.solution ?? rootOrHere());
  // `--solution newdir`: a folder that is not there yet is made, and removed again when the import
  // writes nothing into it (a dry run, a refused import).
  const made = existsSync(root) ? undefined : mkdirSync(root, { recursive: true });
  try {
    const solution = loadSolution(root);
    const plan = planImport(description, solution, {
      source: recordedSource(root, source.path),
      only: options.only,
      exclude: options.exclude ?? [],
      ...(options.from !== undefined ? { from: recordedSource(root, resolve(options.from)) } : {}),
      prefix,
      date: new Date().toISOString().slice(0, 10),
    });
    const diagnostics = await checkFiles(
      solution,
      plan.files.filter((f) => f.status !== 'unchanged'),
    );
    printPlan(out, description, source.shown, plan);
    for (const d of diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
    const invalid = new Set(
      plan.files.filter((f) => diagnostics.some((d) => d.severity === 'error' && d.file === shown(f.path))),
    );
    // An operation that would give an invalid function is left out, said with its findings (above);
    // the others are imported. Only when every one would be invalid is the import an error.
    if (invalid.size > 0 && invalid.size === plan.files.filter((f) => f.status !== 'unchanged').length) {
      throw new ImportError(
        'IMPORT_INVALID_FUNCTION',
        `${[...invalid].map((f) => `${operationLabel(f.operation)} would give an invalid function '${f.name}'`).join('; ')} (the errors are listed above); nothing was written: fix the description`,
      );
    }
    for (const f of invalid) {
      warn(
        `${operationLabel(f.operation)} is left out: it would give an invalid function '${f.name}' (the errors are listed above)`,
      );
    }
    const refused = plan.files.filter(
      (f) => !invalid.has(f) && (f.status === 'changed' || f.status === 'conflict'),
    );
    // What was (or, for a dry run, would be) written: JSON, or the credentials the files need.
    const report = (written: typeof plan.files | undefined) => {
      if (json)
        printReport(
          'json',
          jsonReport(description, source.shown, plan, written, options.solution, invalid),
          String,
        );
      else printCredentials(out, plan.files, options.solution);
    };
    if (options.dryRun) {
      const force = refused.length > 0 ? `; ${refused.length} would be refused without --force` : '';
      status(`dry run: nothing written${force}`);
      report(undefined);
      return;
    }
    if (refused.length > 0 && !options.force) {
      throw new UsageError(
        `${refused.map((f) => `${shown(f.path)} (${f.status === 'changed' ? 'changed since it was imported' : 'exists and was not imported from this file'})`).join(', ')} would be overwritten; nothing was written: rerun with --force to overwrite, or leave ${refused.length === 1 ? 'that operation' : 'those operations'} out with --exclude`,
        'FILE_EXISTS',
      );
    }
    const written = plan.files.filter((f) => f.status !== 'unchanged' && !invalid.has(f));
    for (const f of written) write(f);
    // A folder that was no solution yet becomes one: its solution.yaml, named after the folder.
    const settings = join(root, SOLUTION_FILE);
    if (!solution.settings && written.length > 0 && !existsSync(settings)) {
      const name = suggestFileName(basename(root)) || 'solution';
      writeFileSync(settings, `name: ${name}\ntitle: ${name}\n`, { flag: 'wx' });
      status(`wrote ${shown(settings)} (this folder had none)`);
    }
    const unchanged = plan.files.filter((f) => f.status === 'unchanged').length;
    status(
      `wrote ${written.length} file${written.length === 1 ? '' : 's'}${unchanged > 0 ? `; ${unchanged} unchanged, not rewritten` : ''}`,
    );
    report(written);
  } finally {
    if (made !== undefined && readdirSync(root).length === 0) rmSync(made, { recursive: true });
  }
}

function rootOrHere(): string {
  try {
    return findSolutionRoot(process.cwd());
  } catch {
    return process.cwd();
  }
}

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

type Out = (line: string) => void;

/** The plan's lines, the report for a person; with --format json the JSON report stands for them. */
function lines(json: boolean): Out {
  return json ? () => undefined : (line) => process.stdout.write(`${printable(line)}\n`);
}

/** What `--format json` prints: the plan and what was written, as the text says it. */
function jsonReport(
  description: ImportedDescription,
  file: string,
  plan: ImportPlan,
  written: readonly PlannedFile[] | undefined,
  solution: string | undefined,
  invalid: ReadonlySet<PlannedFile>,
): unknown {
  return {
    source: file,
    title: description.title ?? null,
    format: description.formatName,
    operations: description.operations.length,
    dryRun: written === undefined,
    files: plan.files.map((f) => ({
      name: f.name,
      path: shown(f.path),
      status: f.status,
      operation: operationLabel(f.operation),
      changes: f.changes,
      ...(f.because ? { renamed: f.because } : {}),
      notes: f.operation.notes,
      written: written?.includes(f) ?? false,
      ...(invalid.has(f) ? { invalid: true } : {}),
    })),
    gone: plan.gone.map((g) => ({ name: g.name, path: shown(g.path), operation: g.operation })),
    skipped: description.skipped.map((s) => ({ route: s.route, reason: s.reason })),
    credentials: credentialCommands(plan.files, solution),
  };
}

function printPlan(out: Out, description: ImportedDescription, file: string, plan: ImportPlan): void {
  const title = description.title
    ? `${description.title} (${description.formatName})`
    : description.formatName;
  out(
    `${file}: ${title}, ${description.operations.length} operation${description.operations.length === 1 ? '' : 's'}, ${plan.files.length} selected`,
  );
  for (const f of plan.files) {
    const changes = f.changes.length > 0 ? `: ${f.changes.join(', ')}` : '';
    const refusal =
      f.status === 'changed' || f.status === 'conflict'
        ? f.status === 'conflict'
          ? ' (exists and was not imported from this file; --force overwrites)'
          : ' (--force overwrites)'
        : '';
    out(`  ${f.status.padEnd(9)} ${shown(f.path)}  ${operationLabel(f.operation)}${changes}${refusal}`);
  }
  for (const g of plan.gone) {
    out(
      `  ${'gone'.padEnd(9)} ${shown(g.path)}  ${g.operation || g.name}: no longer in the description (kept: delete it if nothing uses it)`,
    );
  }
  for (const s of description.skipped) out(`  ${'skipped'.padEnd(9)} ${s.route}: ${s.reason}`);
  for (const f of plan.files) {
    if (f.because) out(`  ${'renamed'.padEnd(9)} ${f.name}: ${f.because}`);
    for (const note of f.operation.notes) out(`  ${'note'.padEnd(9)} ${f.name}: ${note}`);
  }
}

/** The `restfn credentials set` commands for the credentials the files name: keys and settings, never a value. */
function credentialCommands(
  files: readonly PlannedFile[],
  solution: string | undefined,
): Array<{ key: string; command: string }> {
  const byKey = new Map<string, { credential: ImportedCredential; scopes: Set<string> }>();
  for (const f of files) {
    for (const c of f.operation.credentials) {
      const entry = byKey.get(c.key) ?? { credential: c, scopes: new Set<string>() };
      for (const s of c.scopes ?? []) entry.scopes.add(s);
      byKey.set(c.key, entry);
    }
  }
  return [...byKey.values()].map(({ credential, scopes }) => {
    const args = ['restfn', 'credentials', 'set', credential.key, ...credential.setArguments];
    for (const s of scopes) args.push('--scope', s);
    if (solution !== undefined) args.push('--solution', solution);
    return { key: credential.key, command: args.map(shellWord).join(' ') };
  });
}

function printCredentials(out: Out, files: readonly PlannedFile[], solution: string | undefined): void {
  const commands = credentialCommands(files, solution);
  if (commands.length === 0) return;
  out(
    'credentials: store these before running the functions (secret values are read from standard input or a prompt, never from arguments; replace the <PLACEHOLDERS>):',
  );
  for (const { command } of commands) out(`  ${command}`);
}

/** A word as a POSIX shell reads it: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function write(f: PlannedFile): void {
  mkdirSync(dirname(f.path), { recursive: true });
  try {
    // A new file is created with 'wx': never overwrite one that appeared since the plan was made.
    writeFileSync(f.path, f.text, { flag: f.status === 'new' ? 'wx' : 'w' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(
        `${shown(f.path)} appeared while importing; nothing more was written: run the import again`,
        'FILE_EXISTS',
      );
    }
    throw error;
  }
}
