import { ScriptError } from './errors.js';
import type { LoadedScripts, ScriptSandbox as Sandbox, ScriptLog, ScriptModule } from './sandbox.js';
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from './script-limits.js';

export type { LoadedScripts, ScriptLoadProblem, ScriptLog, ScriptModule } from './sandbox.js';
export { DEFAULT_SCRIPT_LIMITS, MAX_LOG_LINES, type ScriptLimits } from './script-limits.js';

/**
 * The browser's ScriptSandbox: sandbox.ts itself loaded at the first `load()` or `bindings()`, as
 * QuickJS is, so a solution without expression scripts (or a page that has not evaluated one yet)
 * does not load it with the client's worker. Every use starts with one of the two (the runtime
 * binds the scripts before an expression runs); `call` before them fails as sandbox.ts's does.
 * (The build's plugin lets a sibling import the module it stands for.)
 */
export class ScriptSandbox {
  private real: Sandbox | undefined;
  private loading: Promise<Sandbox> | undefined;
  private closed = false;

  constructor(
    private readonly modules: readonly ScriptModule[],
    private readonly limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS,
    private readonly onLog?: (log: ScriptLog) => void,
  ) {}

  private sandbox(): Promise<Sandbox> {
    this.loading ??= import('./sandbox.js').then(({ ScriptSandbox: Real }) => {
      this.real = new Real(this.modules, this.limits, this.onLog);
      if (this.closed) this.real.close();
      return this.real;
    });
    return this.loading;
  }

  async load(): Promise<LoadedScripts> {
    return (await this.sandbox()).load();
  }

  async bindings(): Promise<Record<string, (...args: unknown[]) => Promise<unknown>>> {
    return (await this.sandbox()).bindings();
  }

  call(module: string, fn: string, args: readonly unknown[]): unknown {
    if (!this.real) throw new ScriptError('SCRIPT_ERROR', 'the scripts are not loaded (call load() first)');
    return this.real.call(module, fn, args);
  }

  close(): void {
    this.closed = true;
    this.real?.close();
  }

  dispose(): void {
    this.real?.dispose();
  }
}
