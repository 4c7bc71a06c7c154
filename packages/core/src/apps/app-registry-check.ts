import { DefinitionError } from '../definition-error';
import type { Registry } from '../registry/registry';
import { APP_MIME_TYPE } from './app-types';
import { uiResourceUriOf } from './tool-ui';

/**
 * Every view a tool names exists on the server as an app resource (`text/html;profile=mcp-app`):
 * the spec has the host read it, so a dangling name is a startup error, not a broken frame later.
 */
export function checkToolViews(registry: Registry): void {
  for (const entry of registry.tools.values()) {
    const uri = uiResourceUriOf(entry.definition);
    if (uri === undefined) continue;
    const view = registry.resources.get(uri);
    if (!view) throw new DefinitionError(`${entry.source}: ui names ${uri}, which this server does not declare (declare it with @AppResource)`);
    if (view.definition.mimeType !== APP_MIME_TYPE) {
      throw new DefinitionError(`${entry.source}: ui names ${uri}, whose MIME type is ${JSON.stringify(view.definition.mimeType ?? null)}, not ${APP_MIME_TYPE}`);
    }
  }
}
