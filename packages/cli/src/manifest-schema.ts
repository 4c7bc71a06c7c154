import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

/** The registry's server.json schema (2025-12-11, draft-07), an unmodified copy shipped with the CLI. */
const SCHEMA_PATH = join(__dirname, '..', 'schemas', 'server.schema.json');

let validate: ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Where `manifest` breaks the registry's schema (none: it is valid). */
export function schemaProblems(manifest: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  }
  if (validate(manifest)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
