import Ajv2020 from 'ajv/dist/2020';
import type { JsonSchema } from '../../src/schema';

// Strict about schema structure (unknown keywords, required names missing from properties),
// not about formats, which need ajv-formats.
const metaAjv = new Ajv2020({ strictSchema: true, strictRequired: true, strictTypes: false, validateFormats: false });

/** Asserts the schema is a valid, self-contained draft 2020-12 schema that ajv can compile. */
export function expectValid2020Schema(schema: JsonSchema): void {
  expect(metaAjv.validateSchema(schema)).toBe(true);
  expect(metaAjv.errors ?? null).toBeNull();
  expect(() => metaAjv.compile(structuredClone(schema))).not.toThrow();
  expect(JSON.stringify(schema)).not.toContain('"definitions"');
}
