import type { RequestContext } from './request-context';
import type { SessionView } from './services';

// Kept apart from the engine so that handlers and the method table need not import it.

/** Answers one client→server request: the result object, or a thrown McpError. */
export type MethodHandler = (params: Record<string, unknown>, ctx: RequestContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Acts on one client→server notification; nothing is answered. */
export type NotificationHandler = (params: Record<string, unknown>, session: SessionView) => void;
