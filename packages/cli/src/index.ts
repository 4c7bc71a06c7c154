export { main } from './main';
export { runServe, serveSettings, type ServeSettings } from './serve';
export { runList, formatList, type ListOutput } from './list';
export { loadModule, findServers, chooseServer, loadServer, type ServerCandidate } from './load-entry';
export { createLogger, type LoggerOptions } from './logger';
export { CliError } from './errors';
export { runDev, devSettings, type DevSettings } from './dev';
export { runCall, runRead, runPrompt } from './call';
