/** An environment flag such as MCPX_OTEL or MCPX_STRICT_DEFINITIONS: `1` or `true` (any case) is on. */
export function envFlag(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  return v === '1' || v === 'true';
}
