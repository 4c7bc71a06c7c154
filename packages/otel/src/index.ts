export { startOtel, type OtelHandle, type OtelOptions } from './start-otel';
export type { PrometheusScrape } from './prometheus';
