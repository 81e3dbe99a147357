// The actions live in ./actions/ (one file per family, run.ts dispatches); this keeps the imports.
export * from './actions/index.js';
