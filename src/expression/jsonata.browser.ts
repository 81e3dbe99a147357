import jsonataLibrary from 'jsonata';

/** JSONata, imported: the browser build bundles it (jsonata.ts requires it lazily, for Node's start-up). */
export const jsonata = jsonataLibrary;
