/**
 * What `restfn import` reads out of a description (OpenAPI 3, Swagger 2 or a Postman collection),
 * the same for every format: one `ImportedOperation` per function file to write.
 */

export type ImportFormat = 'openapi' | 'swagger' | 'postman';

/** A parameter of the function to write (spec 2.2). */
export interface ImportedParameter {
  /** The parameter's name: the header, query or path name it is sent as; for the body, see `property`. */
  readonly name: string;
  readonly location: 'path' | 'query' | 'header' | 'body';
  /** restfn's type (`string`, `int`, `number`, `boolean`, `array`, `object`); none when the description gives none. */
  readonly type?: string | undefined;
  readonly required: boolean;
  /** The default (the parameter's `value`); undefined for none. */
  readonly value?: unknown;
  /** One line shown as a comment above the parameter. */
  readonly comment?: string | undefined;
  /** Body parameters: the top-level property of the JSON body it fills (when it differs from `name`). */
  readonly property?: string;
  /** Query parameters: how a list or object is written (the runtime's `style`, `explode`). */
  readonly style?: 'form' | 'deepObject' | 'pipeDelimited' | 'spaceDelimited';
  readonly explode?: boolean;
}

/** How the function authenticates: one credential parameter, and how to store its credential. */
export interface ImportedCredential {
  /** Where the authentication is declared: the security scheme's name, or the Postman item or folder. */
  readonly scheme: string;
  /** The credential key (the parameter's `value`). */
  readonly key: string;
  readonly kind: 'secret' | 'basic' | 'bearer' | 'oauth';
  readonly parameter: {
    readonly name: string;
    readonly location: 'header' | 'query' | 'body';
    readonly type: string;
  };
  /** `restfn credentials set KEY` arguments after the key: `--kind ...` and what the description tells. */
  readonly setArguments: readonly string[];
  /** OAuth scopes the operation asks for (merged per key over the operations imported). */
  readonly scopes?: readonly string[];
}

export interface ImportedOperation {
  /** The operation as the description names it: its operationId, else `METHOD path`; Postman: folders / name. */
  readonly id: string;
  /** `METHOD path` as written in the description (Postman: the raw url), for messages and the origin comment. */
  readonly route: string;
  readonly method: 'DELETE' | 'GET' | 'HEAD' | 'PUT' | 'PATCH' | 'POST';
  /** What the function name is made from (operationId, the request's name), and the fallback (method and path). */
  readonly nameFrom: string;
  readonly nameFallback: string;
  /** Tags (OpenAPI) or folder names (Postman): `--only` selects by them. */
  readonly tags: readonly string[];
  readonly summary?: string | undefined;
  readonly url: string;
  readonly format: 'json' | 'text' | 'xml' | 'pdf';
  readonly parameters: readonly ImportedParameter[];
  /** JSONata building the request body from the body parameters. */
  readonly inputTransform?: string | undefined;
  readonly credentials: readonly ImportedCredential[];
  /** What was left out of this operation and why, written into the file and shown by the import. */
  readonly notes: readonly string[];
}

export interface ImportedDescription {
  readonly format: ImportFormat;
  /** For people: `OpenAPI 3.0.4`, `Swagger 2.0`, `Postman Collection v2.1`. */
  readonly formatName: string;
  readonly title: string;
  readonly operations: readonly ImportedOperation[];
  /** Operations restfn cannot call at all (an OPTIONS or TRACE method), with the reason. */
  readonly skipped: ReadonlyArray<{ readonly route: string; readonly reason: string }>;
}
