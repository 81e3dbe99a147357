import { PlatformError } from './errors.js';

const MB = 1024 * 1024;

/**
 * Refuses an answer's JSON text over `--max-answer-mb` (`ANSWER_TOO_LARGE`): made where the text is
 * built (the worker, for executes, calls and pages), before it crosses to the request thread, so an
 * oversized output costs the thread that answers every solution nothing. `what` names it for the
 * message ("the answer of function 'x'").
 */
export function checkAnswerSize(text: string, maxMb: number, what: string): void {
  const max = maxMb * MB;
  // A UTF-16 code unit is 1 to 3 bytes of UTF-8 (a pair of them 4): the length alone decides most texts.
  if (text.length * 3 <= max) return;
  const bytes = text.length > max ? text.length : Buffer.byteLength(text);
  if (bytes <= max) return;
  throw new PlatformError(
    'ANSWER_TOO_LARGE',
    `${what} is ${text.length > max ? 'more than ' : ''}${Math.round((bytes / MB) * 10) / 10} MB, over this platform's limit of ${maxMb} MB (restfn serve --max-answer-mb): return less (parameters that narrow the request, an outputTransform that keeps only what the app needs), or ask for it in pages (pages: true)`,
  );
}
