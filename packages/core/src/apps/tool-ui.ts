import type { Caller, VisibilityRule } from '../auth/principal';
import type { ClientCapabilities, Meta, Tool } from '../protocol/types';
import { checkToolUi } from './app-checks';
import { APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, UI_EXTENSION_ID, type ToolUi } from './app-types';

/** Whether a client renders app views: it declares the extension with the app MIME type (in `extensions`, or `experimental` from a 2025-11-25 client keeping to that schema). */
export function supportsApps(capabilities: ClientCapabilities | undefined): boolean {
  if (!capabilities) return false;
  const settings = (own(capabilities.extensions, UI_EXTENSION_ID) ?? own(capabilities.experimental, UI_EXTENSION_ID)) as { mimeTypes?: unknown } | undefined;
  return Array.isArray(settings?.mimeTypes) && settings.mimeTypes.includes(APP_MIME_TYPE);
}

function own(record: Record<string, object> | undefined, key: string): object | undefined {
  return record && typeof record === 'object' && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * A tool's `ui` option made `_meta`: `ui.resourceUri` (and `ui.visibility`), with the flat
 * `ui/resourceUri` key hosts of the first drafts read. A tool only its view may call (visibility
 * `["app"]`) is hidden from clients that render no views: nothing of theirs could call it.
 */
export function toolUiOf(ui: ToolUi, meta: Meta | undefined, visible: VisibilityRule | undefined, where: string): { _meta: Meta; visible?: VisibilityRule } {
  const checked = checkToolUi(ui, where);
  const _meta: Meta = { ...meta, ui: { ...(meta?.ui as object | undefined), ...checked }, [LEGACY_RESOURCE_URI_KEY]: checked.resourceUri };
  if (checked.visibility?.includes('model') !== false) return { _meta, visible };
  const appOnly: VisibilityRule = visible ? (caller) => supportsApps(caller.clientCapabilities) && visible(caller) : (caller: Caller) => supportsApps(caller.clientCapabilities);
  return { _meta, visible: appOnly };
}

/** The view a tool names, from its definition (undefined when it has none). */
export function uiResourceUriOf(tool: Tool): string | undefined {
  const ui = tool._meta?.ui as { resourceUri?: unknown } | undefined;
  return typeof ui?.resourceUri === 'string' ? ui.resourceUri : undefined;
}

/** The definition with its view's URI mapped (a mounted server's views move under its namespace). */
export function withUiUri(tool: Tool, map: (uri: string) => string): Tool {
  const uri = uiResourceUriOf(tool);
  if (uri === undefined) return tool;
  const mapped = map(uri);
  return { ...tool, _meta: { ...tool._meta, ui: { ...(tool._meta!.ui as object), resourceUri: mapped }, [LEGACY_RESOURCE_URI_KEY]: mapped } };
}

/** The definition as a client that renders no views sees it: no UI metadata it cannot use. */
export function withoutUi(tool: Tool): Tool {
  const meta = tool._meta;
  if (!meta || (!Object.prototype.hasOwnProperty.call(meta, 'ui') && !Object.prototype.hasOwnProperty.call(meta, LEGACY_RESOURCE_URI_KEY))) return tool;
  const { ui: _ui, [LEGACY_RESOURCE_URI_KEY]: _flat, ...rest } = meta;
  const { _meta: _dropped, ...definition } = tool;
  return Object.keys(rest).length > 0 ? { ...definition, _meta: rest } : definition;
}
