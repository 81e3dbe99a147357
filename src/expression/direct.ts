/**
 * Direct evaluation of plain projections (issue 11): the expressions most transforms are, field
 * paths (`$` included) and object constructors such as
 * `items.{ "id": id, "name": name, "price": price.amount }`,
 * evaluated by a few closures instead of JSONata's interpreter, which spends ~4 µs per item on
 * promises, frames and guardrail checks for what is a handful of property reads.
 *
 * The result is JSONata's, value for value: the closures follow JSONata 2.2's own code paths
 * (`evaluatePath`, `evaluateStep`, `lookup`, `evaluateGroupExpression` and the sequence rules at
 * the end of `evaluate`), and test/expression/direct.test.ts compares both on generated
 * expressions and data. Whatever lies outside that subset is left to JSONata:
 * - at compile time, any other kind of node or any extra property on one (index predicates,
 *   `[]`, grouping `a{...}`, variables other than `$`, functions, operators other than arithmetic,
 *   comparisons, `and` and `or`); a filter predicate (`items[price > 10]`, issue 41) only on a
 *   name step and only when it is an operator;
 * - at evaluation time, data the closures do not model (an object constructor applied to an
 *   array, which JSONata groups; data holding JSONata's own flags `outerWrapper` under `$` and
 *   `tupleStream` under a constructor, found by a fuzz of 1.4 million cases to be the only
 *   differences) and a sequence longer than `maxSequence`, where JSONata fails
 *   with D2015: the evaluator gives `BY_JSONATA` and JSONata evaluates the expression afresh
 *   (nothing here has side effects).
 * Of the other guardrails: the evaluation depth is bounded by the expression's size (see
 * `directEvaluator`); no text is built; and the work is one pass over the input, with no loops of
 * the expression's own, so the timeout, which exists to stop runaway expressions, is not checked:
 * a projection over a response so large that JSONata would pass the timeout (600,000 items of the
 * bench transform take it ~2 s) finishes here (in ~0.6 s).
 */
import type { ExpressionLimits } from './limits.js';

/** A direct evaluator's answer when JSONata must evaluate instead. */
export const BY_JSONATA: unique symbol = Symbol('evaluate with JSONata');

export type DirectEvaluator = (input: unknown) => unknown;

let enabled = true;

/**
 * Turns direct evaluation off (or on again) for this process: bench/execute.mjs measures restfn's
 * own overhead over JSONata with it off. Not part of the library's API.
 */
export function setDirectEvaluation(on: boolean): void {
  enabled = on;
}

/** Whether evaluations may take the direct path. */
export function directEnabled(): boolean {
  return enabled;
}

/** One of JSONata's sequences: the results a path step collects (flattened, unwrapped when single). */
class Sequence {
  constructor(readonly items: unknown[]) {}
}

/** Thrown inside the closures to leave for JSONata; caught once at the top. */
const LEAVE = Object.freeze({ leave: true });

type Node = (input: unknown, limit: number) => unknown;

/**
 * The direct evaluator of a parsed expression, or undefined when it is not a plain projection
 * (then JSONata always evaluates it).
 */
export function directEvaluator(ast: unknown, limits: ExpressionLimits): DirectEvaluator | undefined {
  // JSONata counts the evaluations under way against `maxDepth` (D1011), and evaluates an object
  // constructor's values concurrently, so its peak depth grows with the constructor's width too.
  // Each node is under evaluation at most once at a time: an expression of no more nodes than
  // `maxDepth` can never trip it, and a larger one is left to JSONata's own count.
  const most = Math.min(limits.maxDepth, MAX_NODES);
  if (nodeCount(ast, most) > most) return undefined;
  const node = compileNode(ast);
  if (!node) return undefined;
  // JSONata applies no sequence limit when none is set.
  const limit = limits.maxSequence || Number.POSITIVE_INFINITY;
  return (input) => {
    try {
      return plain(node(input, limit));
    } catch (error) {
      if (error === LEAVE) return BY_JSONATA;
      throw error;
    }
  };
}

/** Larger expressions are left to JSONata (compiling here recurses). */
const MAX_NODES = 500;

/** How many nodes the expression has (keys and values included), counting no further than `most + 1`. */
function nodeCount(node: unknown, most: number): number {
  let count = 0;
  const stack: unknown[] = [node];
  while (stack.length > 0 && count <= most) {
    const n = stack.pop() as AstNode | null;
    count += 1;
    if (n?.type === 'path' && Array.isArray(n.steps)) stack.push(...n.steps);
    if (n?.type === 'unary' && Array.isArray(n.lhs))
      for (const pair of n.lhs as unknown[][]) stack.push(...pair);
    if (n?.type === 'binary') stack.push(n.lhs, n.rhs);
    if (Array.isArray(n?.stages)) for (const stage of n.stages as AstNode[]) stack.push(stage?.expr);
  }
  return count;
}

interface AstNode {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly steps?: unknown;
  readonly lhs?: unknown;
  readonly rhs?: unknown;
  readonly stages?: unknown;
  readonly expr?: unknown;
}

/** The node's own properties are exactly these (anything more changes how JSONata evaluates it). */
function hasOnly(node: object, allowed: readonly string[]): boolean {
  for (const key of Object.keys(node)) if (!allowed.includes(key)) return false;
  return true;
}

const LEAF = ['type', 'value', 'position'] as const;

/**
 * The closures of one node. Paths are only ever given a single input value here, never an array to
 * walk item by item: the top-level input is one (JSONata wraps an array input as the one item of a
 * sequence), path steps take the items one at a time, and object constructors refuse array inputs
 * (`compileObject`), so the values they evaluate see one item too.
 */
function compileNode(ast: unknown): Node | undefined {
  if (ast === null || typeof ast !== 'object') return undefined;
  const node = ast as AstNode;
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      if (!hasOnly(node, LEAF)) return undefined;
      const value = node.value;
      return () => value;
    }
    case 'name': {
      if (!hasOnly(node, LEAF) || typeof node.value !== 'string') return undefined;
      const key = node.value;
      return (input, limit) => unwrap(lookup(input, key, limit));
    }
    case 'variable':
      // `$`, the context value (an array input is JSONata's wrapped one, which `$` unwraps). Data
      // holding JSONata's own `outerWrapper` flag changes what JSONata gives: left to it.
      return node.value === '' && hasOnly(node, LEAF)
        ? (input) => {
            if (flagged(input, 'outerWrapper')) throw LEAVE;
            return input;
          }
        : undefined;
    case 'path':
      return hasOnly(node, ['type', 'steps']) ? compilePath(node.steps) : undefined;
    case 'unary':
      return node.value === '{' && hasOnly(node, ['type', 'value', 'position', 'lhs'])
        ? compileObject(node.lhs)
        : undefined;
    case 'binary':
      return hasOnly(node, ['type', 'value', 'position', 'lhs', 'rhs']) ? compileBinary(node) : undefined;
    default:
      return undefined;
  }
}

/** `a.b.{...}`: JSONata's evaluatePath and evaluateStep, for steps that are names or constructors. */
function compilePath(steps: unknown): Node | undefined {
  if (!Array.isArray(steps) || steps.length === 0) return undefined;
  const compiled: Node[] = [];
  for (const step of steps) {
    const type = (step as AstNode | null)?.type;
    if (type !== 'name' && type !== 'unary' && type !== 'variable') return undefined;
    const node =
      (step as AstNode).stages !== undefined ? compileFiltered(step as AstNode) : compileNode(step);
    if (!node) return undefined;
    compiled.push(node);
  }
  const last = compiled.length - 1;
  return (input, limit) => {
    // One input item (see compileNode).
    let items: unknown[] = [input];
    let result: unknown[] | Sequence = new Sequence([]);
    for (let s = 0; s <= last; s++) {
      const step = compiled[s]!;
      const found: unknown[] = [];
      for (let i = 0; i < items.length; i++) {
        const value = step(items[i], limit);
        if (value !== undefined) found.push(value);
      }
      if (found.length > limit) throw LEAVE;
      // The last step's one result, an array of the data: that array itself (no flattening).
      if (s === last && found.length === 1 && Array.isArray(found[0])) {
        result = found[0] as unknown[];
        break;
      }
      const flat: unknown[] = [];
      for (let i = 0; i < found.length; i++) {
        const value = found[i];
        if (value instanceof Sequence) pushAll(flat, value.items);
        else if (Array.isArray(value)) pushAll(flat, value);
        else flat.push(value);
      }
      if (flat.length > limit) throw LEAVE;
      result = new Sequence(flat);
      if (flat.length === 0) break;
      items = flat;
    }
    return unwrap(result);
  };
}

/**
 * `items[id > 6]`: a name step with filter predicates (JSONata's `evaluateStep` and
 * `evaluateFilter`), for predicates that give a boolean (comparisons, `and`, `or`). A predicate that
 * gives anything else (a number is an index, other values are cast) is left to JSONata, as is a
 * missing field (JSONata filters its `undefined` as one item).
 */
function compileFiltered(step: AstNode): Node | undefined {
  if (step.type !== 'name' || !hasOnly(step, ['type', 'value', 'position', 'stages'])) return undefined;
  if (typeof step.value !== 'string' || !Array.isArray(step.stages) || step.stages.length === 0)
    return undefined;
  const predicates: Node[] = [];
  for (const stage of step.stages as AstNode[]) {
    if (stage?.type !== 'filter' || !hasOnly(stage, ['type', 'expr', 'position'])) return undefined;
    const predicate = (stage.expr as AstNode | null)?.type === 'binary' ? compileNode(stage.expr) : undefined;
    if (!predicate) return undefined;
    predicates.push(predicate);
  }
  const key = step.value;
  return (input, limit) => {
    let value = unwrap(lookup(input, key, limit));
    for (let p = 0; p < predicates.length; p++) {
      if (value === undefined || flagged(value, 'tupleStream')) throw LEAVE;
      const items = value instanceof Sequence ? value.items : Array.isArray(value) ? value : [value];
      const kept: unknown[] = [];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        // JSONata evaluates the predicate's paths over an array item's items (evaluatePath), which
        // the closures do not model (see compileNode): left to it.
        if (Array.isArray(item)) throw LEAVE;
        const verdict = predicates[p]!(item, limit);
        if (verdict === true) {
          // A hole of a sparse array kept by a predicate that reads nothing: left to JSONata.
          if (item === undefined) throw LEAVE;
          kept.push(item);
        } else if (verdict !== false && verdict !== undefined) throw LEAVE;
      }
      value = new Sequence(kept);
    }
    return value;
  };
}

/**
 * `a * 2`, `id > 6`, `kind = "book"`, `x and y`: JSONata's evaluateBinary for the values its
 * operators take without casting or failing (numbers for arithmetic; two numbers or two texts to
 * compare; texts, numbers, booleans and null to test for equality; booleans for `and` and `or`).
 * Anything else, JSONata's failures included (T2001, T2009, T2010, D1001), is left to it.
 */
function compileBinary(node: AstNode): Node | undefined {
  const op = node.value;
  const lhs = compileNode(node.lhs);
  const rhs = compileNode(node.rhs);
  if (!lhs || !rhs) return undefined;
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return (input, limit) => {
        const a = lhs(input, limit);
        const b = rhs(input, limit);
        if ((a !== undefined && !finite(a)) || (b !== undefined && !finite(b))) throw LEAVE;
        if (a === undefined || b === undefined) return undefined;
        const result = arithmetic(op, a as number, b as number);
        if (!Number.isFinite(result)) throw LEAVE;
        return result;
      };
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (input, limit) => {
        const a = lhs(input, limit);
        const b = rhs(input, limit);
        const ta = typeof a;
        const tb = typeof b;
        if (!(ta === 'undefined' || ta === 'string' || ta === 'number')) throw LEAVE;
        if (!(tb === 'undefined' || tb === 'string' || tb === 'number')) throw LEAVE;
        if (a === undefined || b === undefined) return undefined;
        if (ta !== tb) throw LEAVE;
        return compare(op, a as number | string, b as number | string);
      };
    case '=':
    case '!=':
      return (input, limit) => {
        const a = lhs(input, limit);
        const b = rhs(input, limit);
        if (a === undefined || b === undefined) return false;
        // Objects and arrays are compared deeply by JSONata: left to it.
        if ((typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null)) throw LEAVE;
        return op === '=' ? a === b : a !== b;
      };
    case 'and':
    case 'or':
      return (input, limit) => {
        const a = truth(lhs(input, limit));
        if (op === 'and' ? !a : a) return a;
        return truth(rhs(input, limit));
      };
    default:
      return undefined;
  }
}

/** A number JSONata computes with (its `isNumeric`; an infinite one is its D1001). */
function finite(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function arithmetic(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    default:
      return a % b;
  }
}

function compare(op: string, a: number | string, b: number | string): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

/** JSONata's `boolize` for the booleans its comparisons give (nothing is false); other values are left to it. */
function truth(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw LEAVE;
  return value;
}

/** `{ "key": value, ... }` with text keys: JSONata's evaluateGroupExpression for one input item. */
function compileObject(lhs: unknown): Node | undefined {
  if (!Array.isArray(lhs)) return undefined;
  const keys: string[] = [];
  const values: Node[] = [];
  for (const pair of lhs) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [key, value] = pair as [AstNode, unknown];
    if (key?.type !== 'string' || typeof key.value !== 'string' || !hasOnly(key, LEAF)) return undefined;
    // A key given twice is JSONata's D1009; its own flags are D1013: both left to it.
    if (keys.includes(key.value) || key.value === '_jsonata_lambda' || key.value === '_jsonata_function')
      return undefined;
    const node = compileNode(value);
    if (!node) return undefined;
    keys.push(key.value);
    values.push(node);
  }
  const fields = fieldsConstructor(keys, lhs as Array<[AstNode, unknown]>);
  if (fields) {
    return (input) => {
      if (Array.isArray(input) || flagged(input, 'tupleStream')) throw LEAVE;
      return fields(input);
    };
  }
  return (input, limit) => {
    // Over an array JSONata groups the items by key (and appends them): not modelled here; nor an
    // input holding JSONata's own `tupleStream` flag, which JSONata reads as its tuple stream.
    if (Array.isArray(input) || flagged(input, 'tupleStream')) throw LEAVE;
    const result: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < keys.length; i++) {
      const value = values[i]!(input, limit);
      if (value !== undefined) result[keys[i]!] = plain(value);
    }
    return result;
  };
}

/**
 * `{ "id": id, "name": name }`, every value a field of the input (a name, alone or as a path of one
 * step): one function made for these keys, whose field reads and stores V8 compiles for fixed
 * names. The general closure reads fields and stores keys by variable names, which V8 handles
 * megamorphically: ~200 ns per object of three fields against ~60, a third of restfn's own time
 * per call of a 100-item projection (issue 29). For one input item, not an array (the caller's
 * check), it gives what the general closure gives: JSONata's null-prototype object with an own
 * field's value as it is (a name on an object neither flattens nor wraps), nothing for a missing
 * one, and so an empty object for input that is not an object or is one of JSONata's functions.
 * Keys and names enter the code only as JSON string literals; a process that forbids code
 * generation keeps the general closure.
 */
function fieldsConstructor(
  keys: readonly string[],
  pairs: ReadonlyArray<readonly [AstNode, unknown]>,
): ((input: unknown) => unknown) | undefined {
  if (keys.length === 0) return undefined;
  const names: string[] = [];
  for (const [, value] of pairs) {
    const name = fieldName(value);
    if (name === undefined) return undefined;
    names.push(name);
  }
  const value = (i: number) => `v${i}`;
  // Every field there (the usual case): an object literal, then its prototype taken away, which
  // keeps V8's fast properties (Object.create(null) makes a dictionary, ~3x slower to read back
  // when the result is normalised and serialised). A key `__proto__` would set the prototype in a
  // literal: such constructors always take the second way.
  const literal = keys.includes('__proto__')
    ? []
    : [
        `if (${keys.map((_, i) => `${value(i)} !== undefined`).join(' && ')})`,
        `  return setPrototypeOf({ ${keys.map((key, i) => `${JSON.stringify(key)}: ${value(i)}`).join(', ')} }, null);`,
      ];
  const code = [
    "if (input === null || typeof input !== 'object' || isJsonataFunction(input)) return Object.create(null);",
    ...names.map((name, i) => {
      const field = JSON.stringify(name);
      return `const ${value(i)} = hasOwn(input, ${field}) ? input[${field}] : undefined;`;
    }),
    ...literal,
    'const result = Object.create(null);',
    ...keys.map((key, i) => `if (${value(i)} !== undefined) result[${JSON.stringify(key)}] = ${value(i)};`),
    'return result;',
  ].join('\n');
  try {
    return new Function('hasOwn', 'isJsonataFunction', 'setPrototypeOf', `return (input) => {\n${code}\n};`)(
      Object.hasOwn,
      isJsonataFunction,
      Object.setPrototypeOf,
    ) as (input: unknown) => unknown;
  } catch {
    return undefined;
  }
}

/** The field a value reads, when it is a name alone or a path of one name step. */
function fieldName(value: unknown): string | undefined {
  const node = value as AstNode | null;
  const name =
    node?.type === 'path' &&
    hasOnly(node, ['type', 'steps']) &&
    Array.isArray(node.steps) &&
    node.steps.length === 1
      ? (node.steps[0] as AstNode | null)
      : node;
  return name?.type === 'name' && hasOnly(name, LEAF) && typeof name.value === 'string'
    ? name.value
    : undefined;
}

/** JSONata's `lookup`: a field of an object, or of every item of an array, flattened. */
function lookup(input: unknown, key: string, limit: number): unknown {
  if (Array.isArray(input)) {
    const found: unknown[] = [];
    for (let i = 0; i < input.length; i++) {
      const value = lookup(input[i], key, limit);
      if (value === undefined) continue;
      if (value instanceof Sequence) pushAll(found, value.items);
      else if (Array.isArray(value)) pushAll(found, value);
      else found.push(value);
    }
    if (found.length > limit) throw LEAVE;
    return new Sequence(found);
  }
  if (input !== null && typeof input === 'object' && Object.hasOwn(input, key) && !isJsonataFunction(input))
    return (input as Record<string, unknown>)[key];
  return undefined;
}

/** The end of JSONata's `evaluate`: an empty sequence is nothing, a single one its item. */
function unwrap(value: unknown): unknown {
  if (!(value instanceof Sequence)) return value;
  const { items } = value;
  return items.length === 0 ? undefined : items.length === 1 ? items[0] : value;
}

/** A sequence handed out (a field's value, the result) is a plain array, as restfn's normalising makes it. */
function plain(value: unknown): unknown {
  return value instanceof Sequence ? value.items : value;
}

/** JSONata flattens with `forEach`, which skips the holes of a sparse array (not JSON, but possible). */
function pushAll(target: unknown[], items: readonly unknown[]): void {
  for (let i = 0; i < items.length; i++) if (i in items) target.push(items[i]);
}

/**
 * Data holding one of the flags JSONata keeps on its own values (`outerWrapper`, `tupleStream`),
 * truthy as JSONata tests them: JSONata then treats the data as its own structure, so only it
 * evaluates such input (direct on and off agree).
 */
function flagged(value: unknown, flag: 'outerWrapper' | 'tupleStream'): boolean {
  return value !== null && typeof value === 'object' && Boolean((value as Record<string, unknown>)[flag]);
}

/** JSONata's `isFunction` for objects: its function values are objects with these flags. */
function isJsonataFunction(value: object): boolean {
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true;
}
