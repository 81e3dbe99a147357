// The CLI's credentials are the solution's local store (auth/local-store.ts).
export { localCredentials as credentialProvider } from '../auth/local-credentials.js';
export { openCredentials } from '../auth/local-store.js';
