import type { ClientCapabilities, Implementation, ServerCapabilities } from '../../protocol/types';
import { isShared, markShared, NO_CAPABILITIES } from './shared-client-values';

/**
 * What a session's initialize settled: the protocol version, who the client is, what it declared
 * and what it was offered. One frozen object, held once for every session that settled the same
 * (most sessions of a server come from a few kinds of client): each idle session then holds one
 * field for the four.
 */
export interface SessionTerms {
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly serverCapabilities: ServerCapabilities;
}

/** A session's terms before initialize (and a stateless one's before its request is served). */
export const NO_TERMS: SessionTerms = Object.freeze({
  protocolVersion: '',
  clientInfo: undefined,
  clientCapabilities: NO_CAPABILITIES,
  serverCapabilities: markShared(Object.freeze({})),
});

/** Bounded: past it, a session that settled new terms keeps its own object. */
const MAX_SHARED_TERMS = 64;
const SHARED_TERMS: SessionTerms[] = [NO_TERMS];

/**
 * The terms of these four values: an equal shared object when there is one, else a new one, shared
 * from now on only when each of its values is itself shared (so the table holds nothing a client
 * sized, and a session's own copy of a large declaration is let go with the session).
 */
export function termsOf(protocolVersion: string, clientInfo: Implementation | undefined, clientCapabilities: ClientCapabilities, serverCapabilities: ServerCapabilities): SessionTerms {
  for (const terms of SHARED_TERMS) {
    if (terms.protocolVersion === protocolVersion && terms.clientInfo === clientInfo && terms.clientCapabilities === clientCapabilities && terms.serverCapabilities === serverCapabilities)
      return terms;
  }
  const terms: SessionTerms = Object.freeze({ protocolVersion, clientInfo, clientCapabilities, serverCapabilities });
  const shareable = (clientInfo === undefined || isShared(clientInfo)) && isShared(clientCapabilities) && isShared(serverCapabilities);
  if (shareable && SHARED_TERMS.length < MAX_SHARED_TERMS) SHARED_TERMS.push(terms);
  return terms;
}

/** `terms` with one value changed. */
export function amendTerms<K extends keyof SessionTerms>(terms: SessionTerms, key: K, value: SessionTerms[K]): SessionTerms {
  if (terms[key] === value) return terms;
  const next = { ...terms, [key]: value };
  return termsOf(next.protocolVersion, next.clientInfo, next.clientCapabilities, next.serverCapabilities);
}

/** A session's terms, read and changed one value at a time (a change finds, or makes, the terms with it). */
export abstract class TermsHolder {
  /** What initialize settled (version, client, capabilities both ways): shared by the sessions that settled the same. */
  terms: SessionTerms = NO_TERMS;

  /** Sets the four at once (initialize; a shared session's record): one lookup, and no terms in between. */
  settle(protocolVersion: string, clientInfo: Implementation | undefined, clientCapabilities: ClientCapabilities, serverCapabilities: ServerCapabilities): void {
    this.terms = termsOf(protocolVersion, clientInfo, clientCapabilities, serverCapabilities);
  }

  get protocolVersion(): string {
    return this.terms.protocolVersion;
  }
  set protocolVersion(version: string) {
    this.terms = amendTerms(this.terms, 'protocolVersion', version);
  }
  get clientInfo(): Implementation | undefined {
    return this.terms.clientInfo;
  }
  set clientInfo(info: Implementation | undefined) {
    this.terms = amendTerms(this.terms, 'clientInfo', info);
  }
  get clientCapabilities(): ClientCapabilities {
    return this.terms.clientCapabilities;
  }
  set clientCapabilities(capabilities: ClientCapabilities) {
    this.terms = amendTerms(this.terms, 'clientCapabilities', capabilities);
  }
  /** Fixed at initialize: what this session was told the server can do. */
  get serverCapabilities(): ServerCapabilities {
    return this.terms.serverCapabilities;
  }
  set serverCapabilities(capabilities: ServerCapabilities) {
    this.terms = amendTerms(this.terms, 'serverCapabilities', capabilities);
  }
}
