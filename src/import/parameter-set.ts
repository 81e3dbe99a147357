import type { ImportedCredential, ImportedParameter } from './model.js';

/**
 * The parameters of one operation as they are collected. A function's parameters are keyed by name,
 * and a header, query or path parameter's name is what is sent: two of one name cannot both be kept.
 * Credential parameters are reserved first and win; a body property may be renamed (the
 * inputTransform maps it back), anything else of a taken name is left out with a note.
 */
export class ParameterSet {
  readonly parameters: ImportedParameter[] = [];
  readonly notes: string[] = [];
  private readonly names = new Set<string>();
  private readonly headers = new Set<string>();

  constructor(readonly credentials: readonly ImportedCredential[]) {
    for (const c of credentials) this.reserve(c.parameter.name, c.parameter.location);
  }

  private reserve(name: string, location: string): void {
    this.names.add(name);
    if (location === 'header') this.headers.add(name.toLowerCase());
  }

  taken(name: string, location: string): boolean {
    return this.names.has(name) || (location === 'header' && this.headers.has(name.toLowerCase()));
  }

  /** Adds a header, query or path parameter; a taken name leaves it out, with a note. */
  add(parameter: ImportedParameter): void {
    if (this.taken(parameter.name, parameter.location)) {
      const credential = this.credentials.find(
        (c) => c.parameter.name.toLowerCase() === parameter.name.toLowerCase(),
      );
      this.notes.push(
        credential
          ? `${parameter.location} parameter '${parameter.name}' is not imported: the credential parameter of '${credential.scheme}' has its name`
          : `${parameter.location} parameter '${parameter.name}' is not imported: another parameter has its name (a function's parameters are keyed by name)`,
      );
      return;
    }
    this.reserve(parameter.name, parameter.location);
    this.parameters.push(parameter);
  }

  /** Adds a body parameter under a free name (`body_<property>` when the property's name is taken). */
  addBody(parameter: ImportedParameter): ImportedParameter {
    let name = parameter.name;
    if (this.names.has(name)) {
      name = `body_${parameter.name}`;
      for (let i = 2; this.names.has(name); i++) name = `body_${parameter.name}_${i}`;
    }
    const added =
      name === parameter.name
        ? parameter
        : { ...parameter, name, property: parameter.property ?? parameter.name };
    this.reserve(name, 'body');
    this.parameters.push(added);
    return added;
  }
}
