import { McpxError } from '../errors';

export interface ElicitationProblem {
  property: string;
  reason: string;
}

/** A class whose properties cannot all be shown as fields of an elicitation form. */
export class ElicitationSchemaError extends McpxError {
  constructor(
    readonly className: string,
    readonly problems: ElicitationProblem[],
  ) {
    const lines = problems.map((p) => `- ${p.property}: ${p.reason}`);
    super('MCPX_ELICITATION_SCHEMA', [`Class ${className} cannot be used as an elicitation form:`, ...lines].join('\n'));
  }
}
