import type {
  InterruptHandler,
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { moduleFunctionVariable } from '../translate.js';
import { dateFnsSource } from './date-fns-source.js';
import { ScriptError } from './errors.js';
import { DEFAULT_SCRIPT_LIMITS, MAX_LOG_LINES, type ScriptLimits } from './script-limits.js';

/** One `scripts/expressions/<name>.js` module of a solution. */
export interface ScriptModule {
  /** `$<name>.<function>(...)` in expressions. */
  readonly name: string;
  /** The file as shown in messages. */
  readonly file: string;
  readonly source: string;
}

// In a module of their own, which the browser's lazily loading sibling (sandbox.browser.ts) shares.
export { DEFAULT_SCRIPT_LIMITS, MAX_LOG_LINES, type ScriptLimits } from './script-limits.js';

/** A module that did not load, and where. */
export interface ScriptLoadProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export interface LoadedScripts {
  /** Module name to the names of the functions it exports. */
  readonly functions: ReadonlyMap<string, readonly string[]>;
  readonly problems: readonly ScriptLoadProblem[];
}

const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a script wrote with `console.*`: its level and text (captured, never printed; see PRELUDE). */
export interface ScriptLog {
  readonly level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  /** `module.function` that wrote it, or `module` while the modules load. */
  readonly source: string;
  readonly message: string;
}

/** Each `console` line at most this many characters (and at most `MAX_LOG_LINES` of them per call). */
const MAX_LOG_LINE = 2000;

/**
 * Runs first in every sandbox: `console.log/info/warn/error/debug` that keep what they are given in
 * a bounded buffer (an author can log in a loop), each argument as text (JSON for values); the host
 * drains it after every call. Gives the host the drain function.
 */
const PRELUDE = `(() => {
  const lines = [];
  let dropped = 0;
  const { stringify } = JSON;
  const show = (value) => {
    if (typeof value === 'string') return value;
    try {
      const json = stringify(value);
      return json === undefined ? String(value) : json;
    } catch {
      try { return String(value); } catch { return '[value]'; }
    }
  };
  const writer = (level) => (...args) => {
    if (lines.length >= ${MAX_LOG_LINES}) { dropped++; return; }
    let text = args.map(show).join(' ');
    if (text.length > ${MAX_LOG_LINE}) text = text.slice(0, ${MAX_LOG_LINE}) + '... (' + text.length + ' characters)';
    lines.push([level, text]);
  };
  globalThis.console = {
    log: writer('log'), info: writer('info'), warn: writer('warn'), error: writer('error'), debug: writer('debug'),
  };
  return () => {
    const out = stringify({ lines, dropped });
    lines.length = 0;
    dropped = 0;
    return out;
  };
})()`;

/**
 * Runs inside every sandbox before the modules: freezes the built-in objects (so a module cannot
 * pollute `Object.prototype` and the like for the next call), keeps the module namespaces in a
 * closure, and gives the host two functions: `register` (a module's function names as JSON) and
 * `call` (arguments and result cross as JSON text, so no object is ever shared with Node).
 */
const BOOTSTRAP = `(() => {
  const modules = Object.create(null);
  const { parse, stringify } = JSON;
  for (const key of Object.getOwnPropertyNames(globalThis)) {
    if (key === 'globalThis') continue; // module state may live there; it never leaves the sandbox
    const value = globalThis[key];
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      Object.freeze(value);
      if (value.prototype) Object.freeze(value.prototype);
    }
  }
  const register = (name, namespace) => {
    modules[name] = namespace;
    return stringify(Object.keys(namespace).filter((key) => typeof namespace[key] === 'function'));
  };
  const call = (module, fn, args) => {
    const target = modules[module] && modules[module][fn];
    if (typeof target !== 'function') throw new ReferenceError(module + '.' + fn + ' is not a function');
    const result = Reflect.apply(target, undefined, parse(args)); // no iterator a module could replace
    const type = typeof result;
    if (type === 'function' || type === 'symbol' || type === 'bigint') return '!a ' + type;
    if (type === 'object' && result !== null && typeof result.then === 'function') return '!a promise';
    const json = stringify(result); // undefined also for a toJSON giving undefined
    return json === undefined ? '' : '=' + json;
  };
  return [register, call];
})()`;

/**
 * QuickJS compiled to WebAssembly. The code is imported once per process; each sandbox gets a
 * WebAssembly instance (its own linear memory, ~7 ms to make) of its own: a failure that leaves
 * one instance's allocator or heap inconsistent (a host-level stack overflow unwinds the
 * interpreter half-way) can never reach another solution's scripts.
 */
let quickjs: Promise<{
  newModule: () => Promise<QuickJSWASMModule>;
  deadline: (ms: number) => InterruptHandler;
}>;

function loadQuickJS() {
  quickjs ??= (async () => {
    const core = await import('quickjs-emscripten-core');
    // The package's ESM entry exports the variant as its default; its typings describe the CommonJS one.
    const variant = (await import('@jitl/quickjs-wasmfile-release-sync'))
      .default as unknown as QuickJSSyncVariant;
    return {
      newModule: () => core.newQuickJSWASMModuleFromVariant(variant),
      deadline: (ms: number) => core.shouldInterruptAfterDeadline(Date.now() + ms),
    };
  })();
  return quickjs;
}

/**
 * QuickJS's own stack limit. It must be reached before V8's (about 1 MB on the main thread, less
 * what the caller already uses): each interpreted call is several WebAssembly frames on V8's
 * stack, and at 512 KB a deep recursion overflowed V8 first, unwinding QuickJS half-way (its heap
 * then fails an assertion when freed, which aborts the whole WebAssembly instance). At 256 KB
 * QuickJS stops a recursion at ~1,300 calls with its own InternalError.
 */
const QUICKJS_STACK_BYTES = 256 * 1024;

interface Live {
  readonly rt: QuickJSRuntime;
  readonly ctx: QuickJSContext;
  readonly call: QuickJSHandle;
  readonly drain: QuickJSHandle;
  readonly deadline: (ms: number) => InterruptHandler;
}

/**
 * The expression scripts of one solution, in a QuickJS sandbox of their own (one QuickJS runtime:
 * its own heap, memory limit and interrupt handler). Scripts see only the JavaScript language: no
 * file system, network, process, environment, timers or module loading. Each call has a time limit;
 * the sandbox has a memory limit; after a call hits either, the sandbox is thrown away and the next
 * call starts from freshly loaded modules.
 */
export class ScriptSandbox {
  private live: Live | undefined;
  /** This sandbox's own WebAssembly instance of QuickJS (see `loadQuickJS`). */
  private module: QuickJSWASMModule | undefined;
  private loaded: LoadedScripts | undefined;
  private loading: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly modules: readonly ScriptModule[],
    private readonly limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS,
    /** Told what the scripts write with `console.*` (the trace); without it, dropped. */
    private readonly onLog?: (log: ScriptLog) => void,
  ) {}

  /** Loads the modules (once): what each exports, and what did not load. */
  async load(): Promise<LoadedScripts> {
    if (this.closed) throw new ScriptError('SCRIPT_ERROR', 'the scripts were closed with their runtime');
    if (!this.live || !this.loaded) {
      this.loading ??= this.start().finally(() => {
        this.loading = undefined;
      });
      await this.loading;
    }
    return this.loaded!;
  }

  /** Expression bindings: `module·function` for every exported function (see `translate.ts`). */
  async bindings(): Promise<Record<string, (...args: unknown[]) => Promise<unknown>>> {
    const { functions } = await this.load();
    const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [module, names] of functions) {
      for (const fn of names) {
        out[moduleFunctionVariable(module, fn)] = async (...args) => {
          // Another execution's timeout may have thrown the sandbox away while this one waited.
          while (!this.live) await this.load();
          return this.call(module, fn, args);
        };
      }
    }
    return out;
  }

  /** Calls `module.fn(...args)` in the sandbox; arguments and result travel as JSON. */
  call(module: string, fn: string, args: readonly unknown[]): unknown {
    const live = this.live;
    if (!live) throw new ScriptError('SCRIPT_ERROR', `the scripts are not loaded (call load() first)`);
    const { ctx, rt } = live;
    let text: string;
    try {
      rt.setInterruptHandler(live.deadline(this.limits.timeoutMs));
      const handles = [ctx.newString(module), ctx.newString(fn), ctx.newString(JSON.stringify(args) ?? '[]')];
      const result = ctx.callFunction(live.call, ctx.undefined, ...handles);
      for (const h of handles) h.dispose();
      // What the call logged goes out whether it succeeded or threw (a log before a throw explains it).
      this.drainLogs(live, `${module}.${fn}`);
      if (result.error) {
        const thrown = ctx.dump(result.error) as unknown;
        result.error.dispose();
        throw this.failure(`${module}.${fn}`, thrown);
      }
      text = ctx.getString(result.value);
      result.value.dispose();
    } catch (error) {
      if (error instanceof ScriptError) throw error;
      // Not QuickJS's answer but the host's (V8's stack ran out inside the interpreter, the
      // WebAssembly instance aborted): the sandbox is in an unknown state. It is dropped whole,
      // instance included, without being freed (freeing a broken heap aborts).
      this.abandon();
      throw new ScriptError(
        'SCRIPT_ERROR',
        /call stack/i.test((error as Error).message)
          ? `$${module}.${fn} recursed too deep (stack overflow); its sandbox starts afresh for the next call`
          : `$${module}.${fn} broke its sandbox (${(error as Error).message}); it starts afresh for the next call`,
      );
    }
    if (text === '') return undefined;
    if (text.startsWith('!')) {
      throw new ScriptError(
        'SCRIPT_RESULT',
        `$${module}.${fn} returned ${text.slice(1)}; script functions must return a JSON value synchronously`,
      );
    }
    return JSON.parse(text.slice(1));
  }

  /** Ends the sandbox for good (the runtime closes). Never throws. */
  close(): void {
    this.closed = true;
    this.dispose();
  }

  /** Frees the sandbox; one that cannot be freed is abandoned. Never throws. */
  dispose(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    try {
      live.call.dispose();
      live.drain.dispose();
      live.ctx.dispose();
      live.rt.dispose();
    } catch {
      this.abandon();
    }
  }

  /** Drops the sandbox and its WebAssembly instance unfreed: the garbage collector takes both. */
  private abandon(): void {
    this.live = undefined;
    this.module = undefined;
  }

  private async start(): Promise<void> {
    const { newModule, deadline } = await loadQuickJS();
    // date-fns, which the platform gives expression scripts, only for a solution whose modules import it.
    const dateFns = this.modules.some((m) => DATE_FNS_IMPORT.test(m.source))
      ? await dateFnsSource()
      : undefined;
    this.dispose();
    this.module ??= await newModule();
    if (this.closed) throw new ScriptError('SCRIPT_ERROR', 'the scripts were closed with their runtime');
    const rt = this.module.newRuntime();
    try {
      this.live = this.populate(rt, deadline, dateFns);
    } catch (error) {
      try {
        rt.dispose();
      } catch {
        this.abandon();
      }
      throw error instanceof ScriptError
        ? error
        : new ScriptError('SCRIPT_MEMORY', `the script sandbox could not start: ${(error as Error).message}`);
    }
  }

  /** Bootstrap and modules into a fresh QuickJS runtime (its context is disposed with it). */
  private populate(
    rt: QuickJSRuntime,
    deadline: (ms: number) => InterruptHandler,
    dateFns: string | undefined,
  ): Live {
    rt.setMemoryLimit(this.limits.memoryBytes);
    rt.setMaxStackSize(QUICKJS_STACK_BYTES);
    rt.setInterruptHandler(deadline(this.limits.timeoutMs));
    const ctx = rt.newContext();
    const drain = ctx.unwrapResult(ctx.evalCode(PRELUDE, 'restfn-prelude.js'));
    // date-fns before the built-ins are frozen (its namespace is frozen with them).
    if (dateFns !== undefined) {
      ctx.unwrapResult(ctx.evalCode('globalThis.window = {};', 'restfn-date-fns.js')).dispose();
      ctx.unwrapResult(ctx.evalCode(dateFns, 'date-fns.js')).dispose();
      const names = ctx.unwrapResult(ctx.evalCode('JSON.stringify(Object.keys(window.dateFns))'));
      const exported = JSON.parse(ctx.getString(names)) as string[];
      names.dispose();
      rt.setModuleLoader((name) => dateFnsModule(name, exported));
      // The bundle logs a notice of its own (its CDN files moved): restfn's loading, not the author's.
      ctx.callFunction(drain, ctx.undefined).dispose();
    }
    const pair = ctx.unwrapResult(ctx.evalCode(BOOTSTRAP, 'restfn-bootstrap.js'));
    const register = ctx.getProp(pair, 0);
    const call = ctx.getProp(pair, 1);
    pair.dispose();
    const functions = new Map<string, string[]>();
    const problems: ScriptLoadProblem[] = [];
    for (const m of this.modules) {
      if (!MODULE_NAME.test(m.name) || m.name === 'ctx') {
        problems.push({
          file: m.file,
          line: 1,
          col: 1,
          message: `'${m.name}' cannot be a module name: expressions call $<module>.<function>(), so name the file with letters, digits and _ (not 'ctx')`,
        });
        continue;
      }
      rt.setInterruptHandler(deadline(this.limits.timeoutMs));
      const evaluated = ctx.evalCode(m.source, `${m.name}.js`, { type: 'module' });
      this.drainLogs({ ctx, drain }, m.name);
      if (evaluated.error) {
        const thrown = ctx.dump(evaluated.error) as unknown;
        evaluated.error.dispose();
        problems.push(loadProblem(m, thrown));
        continue;
      }
      const name = ctx.newString(m.name);
      const names = ctx.callFunction(register, ctx.undefined, name, evaluated.value);
      name.dispose();
      evaluated.value.dispose();
      functions.set(m.name, names.error ? [] : JSON.parse(ctx.getString(names.value)));
      (names.error ?? names.value).dispose();
    }
    register.dispose();
    this.loaded = { functions, problems };
    return { rt, ctx, call, drain, deadline };
  }

  /** Hands what the scripts logged since the last drain to `onLog`: one line per call, bounded. */
  private drainLogs(live: Pick<Live, 'ctx' | 'drain'>, source: string): void {
    const { ctx } = live;
    const result = ctx.callFunction(live.drain, ctx.undefined);
    if (result.error) {
      result.error.dispose();
      return;
    }
    const { lines, dropped } = JSON.parse(ctx.getString(result.value)) as {
      lines: Array<[ScriptLog['level'], string]>;
      dropped: number;
    };
    result.value.dispose();
    if (!this.onLog) return;
    for (const [level, message] of lines) this.onLog({ level, source, message });
    if (dropped > 0)
      this.onLog({
        level: 'warn',
        source,
        message: `(${dropped} more console lines not kept: at most ${MAX_LOG_LINES} a call)`,
      });
  }

  /** A call that threw: the time and memory limits by their own codes (and a fresh sandbox next time). */
  private failure(what: string, thrown: unknown): ScriptError {
    const { name, message, stack } = errorParts(thrown);
    const where = scriptPosition(stack);
    const at = where ? ` (${where.file}:${where.line}:${where.col})` : '';
    if (name === 'InternalError' && /interrupted/i.test(message)) {
      this.dispose();
      return new ScriptError('SCRIPT_TIMEOUT', `$${what} ran longer than ${this.limits.timeoutMs} ms${at}`);
    }
    if (/out of memory/i.test(message)) {
      this.dispose();
      const mb = Math.round(this.limits.memoryBytes / 1024 / 1024);
      return new ScriptError('SCRIPT_MEMORY', `$${what} needed more than the scripts' ${mb} MB${at}`);
    }
    // QuickJS's own failures (a stack overflow among them) may leave the heap half-updated: the
    // sandbox is never reused after one. What a script throws itself leaves it as it was.
    if (name === 'InternalError') this.dispose();
    return new ScriptError('SCRIPT_ERROR', `$${what} failed: ${name}: ${message}${at}`);
  }
}

function errorParts(thrown: unknown): { name: string; message: string; stack: string } {
  if (thrown !== null && typeof thrown === 'object') {
    const e = thrown as { name?: unknown; message?: unknown; stack?: unknown };
    return {
      name: String(e.name ?? 'Error'),
      message: String(e.message ?? ''),
      stack: String(e.stack ?? ''),
    };
  }
  return { name: 'Error', message: String(thrown), stack: '' };
}

/** `utils.js:3:11` in a QuickJS stack: the first frame inside a module. */
function scriptPosition(stack: string): { file: string; line: number; col: number } | undefined {
  const match = /([A-Za-z_][A-Za-z0-9_]*\.js):(\d+)(?::(\d+))?/.exec(stack);
  if (!match || match[1] === 'restfn-bootstrap.js') return undefined;
  return { file: match[1]!, line: Number(match[2]), col: Number(match[3] ?? 1) };
}

function loadProblem(m: ScriptModule, thrown: unknown): ScriptLoadProblem {
  const { name, message, stack } = errorParts(thrown);
  const where = scriptPosition(stack);
  const importing = /could not load module|module loader/i.test(message);
  return {
    file: m.file,
    line: where?.line ?? 1,
    col: where?.col ?? 1,
    message: importing
      ? `the module imports another module, which expression scripts cannot do (${message}); keep each module self-contained`
      : `the module does not load: ${name}: ${message}`,
  };
}

/** A module that imports date-fns (`from 'date-fns'`, `from "date-fns/format"`). */
const DATE_FNS_IMPORT = /\bfrom\s*['"]date-fns(?:\/[\w-]+)?['"]|\bimport\s*\(\s*['"]date-fns/;

/** `date-fns` as an ES module over the namespace the bundle set; `date-fns/<name>`: that function. */
function dateFnsModule(name: string, exported: readonly string[]): string | { error: Error } {
  const NAME = /^[A-Za-z_$][\w$]*$/;
  if (name === 'date-fns') {
    const lines = exported.filter((n) => NAME.test(n)).map((n) => `export const ${n} = d.${n};`);
    return `const d = globalThis.window.dateFns;\n${lines.join('\n')}\nexport default d;`;
  }
  const single = /^date-fns\/([A-Za-z_$][\w$]*)$/.exec(name)?.[1];
  if (single && exported.includes(single))
    return `const f = globalThis.window.dateFns.${single};\nexport const ${single} = f;\nexport default f;`;
  return {
    error: new Error(`module '${name}' is not available: expression scripts may import only 'date-fns'`),
  };
}
