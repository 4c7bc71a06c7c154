// Value helpers the elicitation files share: a record test and how values read in problem messages.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

export const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));
export const list = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');
