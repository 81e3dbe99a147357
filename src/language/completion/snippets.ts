import { renderTemplate, TEMPLATE_NAMES } from '../../definition/templates.js';
import type { CompletionEntry } from './entry.js';

const METHODS = 'GET,POST,PUT,PATCH,DELETE';

/**
 * The function templates `restfn new -t` writes, as snippets for an empty function file: the
 * template's own text (templates.ts), with the url, the method and a default or credential key as
 * placeholders to tab through, in that order.
 */
export function templateSnippets(): CompletionEntry[] {
  return TEMPLATE_NAMES.map((name) => {
    const text = renderTemplate(name);
    const description = /^# (.*)$/m.exec(text)?.[1];
    const snippet = text
      .split('\n')
      .map((line) => {
        const escaped = line.replace(/[\\$}]/g, (c) => `\\${c}`);
        if (/^url: /.test(line)) return `url: \${1:${escaped.slice(5)}}`;
        if (/^method: /.test(line)) return `method: \${2|${METHODS}|}`;
        const value = /^(\s+value: )(.*)$/.exec(escaped);
        if (value && /^[\w.-]+$/.test(value[2]!)) return `${value[1]}\${3:${value[2]}}`;
        return escaped;
      })
      .join('\n');
    return {
      label: `template: ${name}`,
      kind: 'snippet',
      detail: `restfn new NAME -t ${name}`,
      ...(description ? { documentation: description } : {}),
      insertText: `${snippet.trimEnd()}\n$0`,
      snippet: true,
    };
  });
}
