import type { McpExtension } from '../context/extension';
import { APP_MIME_TYPE, UI_EXTENSION_ID } from './app-types';

/**
 * MCP Apps in the server's capabilities: `extensions["io.modelcontextprotocol/ui"]: {}` in
 * `server/discover` (and `initialize`) while the server serves a view; nothing otherwise. The
 * extension adds no method: hosts read views with `resources/read` and call tools as usual.
 */
export const appsExtension: McpExtension = {
  id: UI_EXTENSION_ID,
  // Hosts read `capabilities.extensions` in both eras (2025-11-25 ones send theirs there too).
  legacyCapability: 'extensions',
  settings: (server) => {
    for (const entry of server.registry.resources.values()) if (entry.definition.mimeType === APP_MIME_TYPE) return {};
    return undefined;
  },
};
