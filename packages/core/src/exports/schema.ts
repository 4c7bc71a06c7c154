// '@mcpx/core/schema': Input classes and JSON Schema: what the decorators' rules become, and the validators behind them.

export { DEFAULT_ARGUMENT_LIMITS } from '../schema/argument-limits';
export { checkElicitationSchema } from '../schema/check-elicitation-schema';
export { classToJsonSchema } from '../schema/class-schema';
export { formatIssues, validateInput } from '../schema/class-validation';
export { ElicitationSchemaError } from '../schema/elicitation-schema-error';
export type { ElicitationSchema } from '../schema/elicitation-schema-types';
export { getFieldOptions, type FieldOptions } from '../schema/field';
export type { ValidationIssue } from '../schema/json-schema';
export { compileJsonSchema } from '../schema/json-schema-validation';
export type { DefinitionProblem } from '../schema/property-schema';
export { toElicitationSchema } from '../schema/to-elicitation-schema';
export { validateElicitedContent } from '../schema/validate-elicited-content';
export { UriTemplate, UriTemplateError } from '../uri-template';
