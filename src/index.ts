/** restfn's public API. The CLI is a thin layer over these. */

export type { AppliedCredential, CredentialProvider, CredentialRequest } from './auth/credential-provider.js';
export { localCredentials } from './auth/local-credentials.js';
export { type CredentialRecords, type ProviderOptions, StoreCredentialProvider } from './auth/provider.js';
export { type Diagnostic, formatDiagnostic } from './definition/diagnostic.js';
export { jsonSchema } from './definition/json-schema.js';
export { RULES, type RuleCode, type Severity } from './definition/rule-codes.js';
export type {
  ActionDefinition,
  DatasourceDefinition,
  ErrorHandler,
  FileKind,
  FunctionDefinition,
  Operation,
  ParameterDefinition,
  SolutionDefinition,
} from './definition/schema/index.js';
export {
  findSolutionRoot,
  type LoadOptions,
  loadSolution,
  type Solution,
  SolutionNotFoundError,
  type SourceFile,
} from './definition/solution.js';
export { renderTemplate, TEMPLATE_NAMES, type TemplateName } from './definition/templates.js';
export { type ValidationResult, validateSolution } from './definition/validate.js';
export { CredentialError } from './errors/credential-error.js';
export { DefinitionError } from './errors/definition-error.js';
export { RestfnError, UsageError } from './errors/restfn-error.js';
export { ExpressionError } from './expression/errors.js';
export { type EvaluateOptions, evaluate } from './expression/evaluate.js';
export { DEFAULT_LIMITS, type ExpressionLimits } from './expression/limits.js';
export { InvalidUrlError } from './http/build-request.js';
export {
  AbortedError,
  CallError,
  NetworkError,
  RedirectLimitError,
  RemoteError,
  ResponseFormatError,
  ResponseTooDeepError,
  ResponseTooLargeError,
  TimeoutError,
  type TimeoutPhase,
} from './http/errors.js';
export { DEFAULT_HTTP, type HttpOptions } from './http/options.js';
export { FileStore } from './local/files.js';
export { isTempId, LocalStore, newTempId } from './local/store.js';
export {
  type ActionCommand,
  type ActionOptions,
  type ActionResult,
  type Failure,
  failed,
  failure,
  isScreenStep,
  type ScreenStep,
  type StepResult,
} from './runtime/actions/index.js';
export type { CallContext } from './runtime/context.js';
export type { ExecutionResult } from './runtime/engine.js';
export {
  FunctionNotFoundError,
  ParameterError,
  UnsupportedStepError,
} from './runtime/errors.js';
export type { EventListener, ExecutionEvent } from './runtime/events.js';
export type { RuntimeOptions } from './runtime/options.js';
export { type CreateRuntimeOptions, createRuntime, Runtime } from './runtime/runtime.js';
export type { DatasourceResult, EntitySync, SyncOptions, SyncProgress } from './runtime/sync.js';
