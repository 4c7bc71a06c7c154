import type { MessageChannel } from '../../context/channel';
import type { McpLogger } from '../../context/mcp-logger';
import type { PendingAnswers } from './pending-answers';
import type { SessionPatch } from '../../cluster/cluster';
import type { Principal } from '../../auth/principal';

/** How a session's changes reach the other instances sharing it (see Cluster): set by the transport on the copy it serves requests with. */
export interface SessionSync {
  update(patch: SessionPatch): Promise<void>;
  subscribe(uri: string, on: boolean): Promise<void>;
}

/** The parts of a session most sessions never make: kept apart so an idle session's object stays small. */
export class SessionExtras {
  subscribed?: Set<string>;
  loggedOutlet?: MessageChannel;
  /** Requests this server sent the client, waiting for its answer. */
  asked?: PendingAnswers;
  clientLogger?: McpLogger;
  sync?: SessionSync;
  principal?: Principal;
}
