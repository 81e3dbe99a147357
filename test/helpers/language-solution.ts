// A two-file solution for the language service's tests and `restfn lsp`'s: a function and a
// datasource naming it (the name given, so a test can point it at a function that is not there).

export const FUNCTION = `provider: DATA_PROVIDER_REST
method: GET
url: https://api.example.com/customers
outputTransform: $.items
`;

export const DATASOURCE = (fn: string) => `type: datasource.sqlite
options:
  provider: DATA_PROVIDER_LOCAL
  entities:
    - entity: customers
      function: ${fn}
  query: SELECT id, data FROM [customers]
`;
