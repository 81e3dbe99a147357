import { UsageError } from '../errors/restfn-error.js';

/**
 * Reads a secret without it ever touching argv or the screen: all of standard input when it is a
 * pipe or file, else a prompt on the terminal with echo turned off.
 */
export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk;
    const value = text.replace(/\r?\n$/, '');
    if (!value) throw new UsageError(`${prompt}: nothing on standard input`, 'SECRET_MISSING');
    return value;
  }
  // Echo off before the prompt shows: what is typed as soon as it shows is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(`${prompt}: `);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            resolve(value);
            return;
          }
          if (ch === '\u0003') {
            stdin.off('data', onData);
            reject(new UsageError('cancelled', 'CANCELLED'));
            return;
          }
          value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}
