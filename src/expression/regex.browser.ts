/**
 * The browser build's regular expressions: the browser's own engine, as JSONata itself uses, instead
 * of re2js (150 KB of the client's worker). What makes RE2 necessary on Node is the platform's:
 * a catastrophic pattern there would hang a process that serves other solutions; in the client it
 * could only slow the app user's own tab's worker. A published solution's patterns passed RE2's
 * check on the platform (regex.ts refuses lookahead and backreferences when an expression
 * compiles), and on RE2's syntax the two engines agree.
 */
export class LinearRegExp {
  lastIndex = 0;
  private readonly native: RegExp;

  constructor(regex: RegExp) {
    this.native = new RegExp(regex.source, `${regex.flags.replace('g', '')}g`);
  }

  /** A match as `RegExp.prototype.exec` gives it, from `lastIndex` (JSONata drives it so). */
  exec(text: string): RegExpExecArray | null {
    if (this.lastIndex > text.length) {
      this.lastIndex = 0;
      return null;
    }
    this.native.lastIndex = this.lastIndex;
    const match = this.native.exec(text);
    if (!match) {
      this.lastIndex = 0;
      return null;
    }
    // An empty match moves on by one, as RE2's matcher does (no endless loop on /a*/).
    this.lastIndex = match[0] === '' ? match.index + 1 : this.native.lastIndex;
    return match;
  }
}

/** Every pattern the browser's engine compiles runs here (see the class comment). */
export function unsupportedRegex(_regex: RegExp): string | undefined {
  return undefined;
}
