import { McpError } from '../../../protocol/errors';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../../protocol/versions';
import type { ClientCapabilities, Implementation, InitializeResult } from '../../../protocol/types';
import type { Answers, LegacyResults } from '../../../handlers/method-types';
import { objectParam, stringParam } from '../../../context/params';
import type { Session } from '../session';

/** The capabilities of a client that declares none: one object for every such session rather than each request's own. */
const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

/** Client infos held once for every session that sends the same: most sessions of a server come from a few clients. */
const SHARED_INFOS = new Map<string, Implementation>();
/** Bounded, so clients inventing names cannot grow it: past this, a session keeps its own. */
const MAX_SHARED_INFOS = 64;
const MAX_SHARED_FIELD = 128;

/** `info`, or an equal frozen copy shared with the sessions before that sent the same name, version and title (and nothing else). */
function sharedInfo(info: Record<string, unknown>): Implementation {
  const { name, version, title } = info as { name: string; version: string; title?: string };
  let fields = 0;
  for (const key in info) if (Object.hasOwn(info, key)) fields++;
  if (fields !== (title === undefined ? 2 : 3) || (title !== undefined && typeof title !== 'string')) return info as unknown as Implementation;
  if (name.length > MAX_SHARED_FIELD || version.length > MAX_SHARED_FIELD || (title?.length ?? 0) > MAX_SHARED_FIELD) return info as unknown as Implementation;
  // JSON: no two different triples give one key (a separator could appear inside a name).
  const key = JSON.stringify([name, version, title]);
  let shared = SHARED_INFOS.get(key);
  if (shared === undefined) {
    if (SHARED_INFOS.size >= MAX_SHARED_INFOS) return info as unknown as Implementation;
    shared = Object.freeze(title === undefined ? { name, version } : { name, version, title });
    SHARED_INFOS.set(key, shared);
  }
  return shared;
}

function declaresNone(capabilities: Record<string, unknown>): boolean {
  for (const key in capabilities) if (Object.hasOwn(capabilities, key)) return false;
  return true;
}

/** initialize: negotiates the version (the client's if we speak it, else our latest) and capabilities. */
export const initialize: Answers<LegacyResults['initialize']> = (params, ctx) => {
  const session = ctx.session as Session;
  if (session.state !== 'new') throw McpError.invalidRequest('initialize: the session is already initialized');
  const requested = stringParam(params, 'protocolVersion', 'initialize');
  const capabilities = objectParam(params, 'capabilities', 'initialize');
  if (!capabilities) throw McpError.invalidParams('initialize: "capabilities" must be an object and is missing');
  const clientInfo = objectParam(params, 'clientInfo', 'initialize');
  if (!clientInfo || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw McpError.invalidParams('initialize: "clientInfo" must be an object with string "name" and "version"');
  }
  const engine = session.engine;
  // The server's own copy of the version string: a session holds no string of the request's.
  session.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.find((v) => v === requested) ?? LATEST_PROTOCOL_VERSION;
  session.clientCapabilities = declaresNone(capabilities) ? NO_CAPABILITIES : (capabilities as ClientCapabilities);
  session.clientInfo = sharedInfo(clientInfo);
  session.serverCapabilities = engine.capabilities({ unsolicited: session.unsolicited });
  session.state = 'initializing';
  // Through the session's logger only when the line is written: an idle session then holds no logger of its own.
  if (engine.logger.isLevelEnabled('info'))
    session.logger.info({ client: clientInfo.name, clientVersion: clientInfo.version, protocolVersion: session.protocolVersion }, 'session initialized');
  const result: InitializeResult = {
    protocolVersion: session.protocolVersion,
    capabilities: session.serverCapabilities,
    serverInfo: engine.serverInfo,
  };
  if (engine.instructions !== undefined) result.instructions = engine.instructions;
  return result;
};

export const ping: Answers<LegacyResults['ping']> = () => ({});
