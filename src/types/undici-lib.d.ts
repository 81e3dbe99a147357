// undici's own files that src/http/undici-parts.ts imports (CommonJS, no typings of their own):
// typed there, from undici's public typings.
declare module 'undici/lib/api/api-request.js' {
  const request: (this: unknown, options: object) => Promise<never>;
  export default request;
}
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: unknown;
  export default Agent;
}
declare module 'undici/lib/core/errors.js' {
  const errors: unknown;
  export default errors;
}
declare module 'undici/lib/core/util.js' {
  const util: { parseURL(url: string): URL };
  export default util;
}
declare module 'undici/lib/core/connect.js' {
  const buildConnector: unknown;
  export default buildConnector;
}
