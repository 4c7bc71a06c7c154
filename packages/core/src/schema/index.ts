export { Field, getFieldOptions, type FieldOptions } from './field';
export { type JsonSchema, type ValidationIssue } from './json-schema';
export { classToJsonSchema, type DefinitionProblem } from './class-schema';
export { inputClassProblems } from './class-checks';
export { headerParameters, scanHeaderParameters, HEADER_KEYWORD, type HeaderParameter, type HeaderScan } from './header-parameters';
export { validateInput, validateOutput, formatIssues, type ValidationResult } from './class-validation';
export { compileJsonSchema, type JsonSchemaValidator } from './json-schema-validation';
export { toElicitationSchema } from './to-elicitation-schema';
export { checkElicitationSchema } from './check-elicitation-schema';
export { validateElicitedContent } from './validate-elicited-content';
export { ElicitationSchemaError, type ElicitationProblem } from './elicitation-schema-error';
export type {
  ElicitationSchema,
  PrimitiveSchema,
  ElicitationStringSchema,
  ElicitationNumberSchema,
  ElicitationBooleanSchema,
  ElicitationSingleSelectSchema,
  ElicitationMultiSelectSchema,
  ElicitationOption,
  ElicitationFormat,
} from './elicitation-schema-types';
