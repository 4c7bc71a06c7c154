import { McpError } from '../../../protocol/errors';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../../protocol/versions';
import type { InitializeResult } from '../../../protocol/types';
import { sharedCapabilities, sharedInfo } from '../shared-client-values';
import type { Answers, LegacyResults } from '../../../handlers/method-types';
import { objectParam, stringParam } from '../../../context/params';
import type { Session } from '../session';

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
  session.settle(
    SUPPORTED_PROTOCOL_VERSIONS.find((v) => v === requested) ?? LATEST_PROTOCOL_VERSION,
    sharedInfo(clientInfo),
    sharedCapabilities(capabilities),
    engine.capabilities({ unsolicited: session.unsolicited }),
  );
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
