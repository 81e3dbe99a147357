// The demo echoes each command it runs; pasted into a shell, the echoed line must give the same
// arguments (issue 38: `-p name=Ada Lovelace` echoed bare became two arguments). POSIX sh quoting:
// an argument of only safe characters as it is, any other in single quotes (a ' inside as '\'').

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as sh reads it back. */
export function shellQuote(arg) {
  const text = String(arg);
  return SAFE.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A command line of arguments, each quoted as needed. */
export function shellLine(args) {
  return args.map(shellQuote).join(' ');
}
