// The restricted schema of form-mode elicitation (MCP 2025-11-25, SEP-1034 / SEP-1330).

/** The string formats a form field may declare. */
export type ElicitationFormat = 'email' | 'uri' | 'date' | 'date-time';

/** One choice of an enum with a display title (`oneOf` / `items.anyOf` entries). */
export type ElicitationOption = { const: string; title: string };

export type Labels = { title?: string; description?: string };

export type ElicitationStringSchema = Labels & {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: ElicitationFormat;
  default?: string;
};

export type ElicitationNumberSchema = Labels & {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
};

export type ElicitationBooleanSchema = Labels & { type: 'boolean'; default?: boolean };

/** Single select: plain `enum`, legacy `enum` + `enumNames`, or titled `oneOf`. */
export type ElicitationSingleSelectSchema = Labels & { type: 'string'; default?: string } & ({ enum: string[]; enumNames?: string[] } | { oneOf: ElicitationOption[] });

/** Multi-select: an array of strings chosen from `items.enum` or titled `items.anyOf`. */
export type ElicitationMultiSelectSchema = Labels & {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] } | { anyOf: ElicitationOption[] };
  default?: string[];
};

/** A property of an elicitation form: one of the primitive shapes the protocol allows. */
export type PrimitiveSchema = ElicitationStringSchema | ElicitationNumberSchema | ElicitationBooleanSchema | ElicitationSingleSelectSchema | ElicitationMultiSelectSchema;

/** `requestedSchema` of an `elicitation/create` request in form mode: a flat object. */
export type ElicitationSchema = {
  type: 'object';
  properties: Record<string, PrimitiveSchema>;
  required?: string[];
};

/** The formats above as a set, for checking a schema at runtime. */
export const ELICITATION_FORMATS: ReadonlySet<unknown> = new Set(['email', 'uri', 'date', 'date-time']);
