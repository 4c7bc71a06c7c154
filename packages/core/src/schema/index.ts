export { Field, getFieldOptions, type FieldOptions } from './field';
export { type JsonSchema, type ValidationIssue } from './json-schema';
export { classToJsonSchema, type DefinitionProblem } from './class-schema';
export { inputClassProblems } from './class-checks';
export { validateInput, validateOutput, formatIssues, type ValidationResult } from './class-validation';
export { compileJsonSchema, type JsonSchemaValidator } from './json-schema-validation';
export {
  toElicitationSchema,
  checkElicitationSchema,
  validateElicitedContent,
  ElicitationSchemaError,
  type ElicitationSchema,
  type PrimitiveSchema,
  type ElicitationStringSchema,
  type ElicitationNumberSchema,
  type ElicitationBooleanSchema,
  type ElicitationSingleSelectSchema,
  type ElicitationMultiSelectSchema,
  type ElicitationOption,
  type ElicitationFormat,
  type ElicitationProblem,
} from './elicitation-schema';
