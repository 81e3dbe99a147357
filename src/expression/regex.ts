import type { Matcher, RE2JS } from 're2js';
import { re2Library } from './re2-library.js';

/**
 * Regular expressions in expressions (`$match(s, /^(a+)+$/)`, `$replace`, `$split`, `$contains`)
 * run on RE2's linear-time algorithm (re2js, plain JavaScript), never on V8's backtracking engine:
 * V8 cannot be interrupted inside one match, so a catastrophic pattern would hang the process past
 * every timeout. JSONata hands each regular expression literal to its `RegexEngine` option; this
 * class is that engine. RE2 has no lookahead and no backreferences (they are what makes
 * backtracking necessary); such patterns are refused when the expression compiles.
 */
export class LinearRegExp {
  /** Where the next `exec` starts (JSONata drives a global match through this, as with RegExp). */
  lastIndex = 0;
  private readonly program: RE2JS;
  private matcher: Matcher | undefined;
  private text: string | undefined;

  constructor(regex: RegExp) {
    this.program = linearProgram(regex);
  }

  /** A match as `RegExp.prototype.exec` gives it (index, groups; unmatched groups undefined). */
  exec(text: string): RegExpExecArray | null {
    if (this.lastIndex > text.length) {
      this.lastIndex = 0;
      return null;
    }
    // One matcher per text: JSONata calls exec repeatedly on the same string for every next match.
    if (this.text !== text || !this.matcher) {
      this.matcher = this.program.matcher(text);
      this.text = text;
    }
    const m = this.matcher;
    if (!m.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: Array<string | undefined> = [];
    for (let i = 0; i <= m.groupCount(); i++) groups.push(m.group(i) ?? undefined);
    const result = Object.assign(groups, { index: m.start(), input: text }) as unknown as RegExpExecArray;
    this.lastIndex = m.end();
    return result;
  }
}

/** Compiled programs per JSONata regular expression (the parsed tree keeps one RegExp per literal). */
const programs = new WeakMap<RegExp, RE2JS>();

/**
 * re2js (260 KB) is loaded when the first regular expression is compiled: most expressions have
 * none, and start-up is part of every command (issue 11). Its CommonJS build, required, because
 * compiling is synchronous.
 */
let engine: typeof RE2JS | undefined;
function re2(): typeof RE2JS {
  engine ??= re2Library().RE2JS;
  return engine;
}

/** The linear-time program for a JSONata regular expression literal; throws when RE2 cannot run it. */
function linearProgram(regex: RegExp): RE2JS {
  let program = programs.get(regex);
  if (!program) {
    // Lookbehind support slows every match of a program a little: only where the pattern has one.
    const RE2 = re2();
    let flags = /\(\?<[=!]/.test(regex.source) ? RE2.LOOKBEHINDS : 0;
    if (regex.flags.includes('i')) flags |= RE2.CASE_INSENSITIVE;
    if (regex.flags.includes('m')) flags |= RE2.MULTILINE;
    program = RE2.compile(RE2.translateRegExp(regex.source), flags);
    programs.set(regex, program);
  }
  return program;
}

/** Why `regex` cannot run in linear time (undefined when it can), said so the author can fix it. */
export function unsupportedRegex(regex: RegExp): string | undefined {
  try {
    linearProgram(regex);
    return undefined;
  } catch (error) {
    const detail = (error as Error).message.replace(/^error parsing regexp: /, '');
    return `the regular expression /${regex.source}/ cannot be used: ${detail}. Regular expressions run in linear time (RE2 syntax), which has no lookahead ((?=, (?!) and no backreferences (\\1); match in two steps or with $contains instead`;
  }
}
