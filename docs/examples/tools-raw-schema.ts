import 'reflect-metadata';
import { Server, Tool } from '@mcpx/core';

interface SumInput {
  numbers: number[];
}

/** Hand-written JSON Schemas (2020-12), used as authored and validated with a JSON Schema validator. */
@Server({ name: 'calc', version: '1.0.0' })
export class CalcServer {
  @Tool({
    description: 'Adds numbers',
    inputSchema: {
      type: 'object',
      properties: { numbers: { type: 'array', items: { type: 'number' }, minItems: 1 } },
      required: ['numbers'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    },
  })
  sum(input: SumInput) {
    return { sum: input.numbers.reduce((a, b) => a + b, 0) };
  }
}
