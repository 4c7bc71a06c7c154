import { DefinitionError } from '../definition-error';
import { checkOptions, optionKeys } from '../metadata/check-options';
import type { AppCsp, AppPermissions, AppResourceOptions, AppToolVisibility, ToolUi } from './app-types';

const RESOURCE_KEYS = optionKeys<AppResourceOptions>()('uri', 'name', 'title', 'description', 'html', 'file', 'csp', 'permissions', 'domain', 'prefersBorder');
const CSP_KEYS = optionKeys<AppCsp>()('connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains');
const PERMISSION_KEYS = optionKeys<AppPermissions>()('camera', 'microphone', 'geolocation', 'clipboardWrite');
const VISIBILITIES: readonly AppToolVisibility[] = ['model', 'app'];

/**
 * An origin as a CSP source the spec allows: scheme, host (a leading `*.` for its subdomains),
 * optional port. Nothing a host would read as more: no `*` alone, no keyword (`'unsafe-eval'`), no
 * path, no `;` or space that would start another directive.
 */
const ORIGIN = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::\d{1,5})?$/;

/** `ui://` and something after it that parses as a URI, with no space or fragment. */
export function isUiUri(uri: unknown): uri is string {
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length <= 'ui://'.length || /[\s#]/.test(uri)) return false;
  try {
    new URL(uri);
    return true;
  } catch {
    return false;
  }
}

/** Every rule of the spec a view declaration can break, as a startup error naming where. */
export function checkAppResource(options: AppResourceOptions, where: string): void {
  if (options === null || typeof options !== 'object') throw new DefinitionError(`${where}: expects an options object`);
  checkOptions(where, options, RESOURCE_KEYS);
  if (!isUiUri(options.uri)) throw new DefinitionError(`${where}: uri ${JSON.stringify(options.uri)} must be a ui:// URI (ui://<server>/<view>)`);
  const at = `${where} ${options.uri}`;
  if (typeof options.name !== 'string' || options.name.length === 0) throw new DefinitionError(`${at}: name must be a non-empty string`);
  const sources = (options.html !== undefined ? 1 : 0) + (options.file !== undefined ? 1 : 0);
  if (sources !== 1) throw new DefinitionError(`${at}: give the document as exactly one of html (a string or a function) and file`);
  if (options.html !== undefined && typeof options.html !== 'string' && typeof options.html !== 'function') throw new DefinitionError(`${at}: html must be a string or a function`);
  if (options.file !== undefined && (typeof options.file !== 'string' || options.file.length === 0)) throw new DefinitionError(`${at}: file must be a path`);
  if (options.csp !== undefined) checkCsp(options.csp, at);
  if (options.permissions !== undefined) checkPermissions(options.permissions, at);
  if (options.domain !== undefined && (typeof options.domain !== 'string' || options.domain.length === 0 || /[\s;'"]/.test(options.domain))) {
    throw new DefinitionError(`${at}: domain must be a host name (its format is the host's to define)`);
  }
  if (options.prefersBorder !== undefined && typeof options.prefersBorder !== 'boolean') throw new DefinitionError(`${at}: prefersBorder must be true or false`);
}

function checkCsp(csp: AppCsp, at: string): void {
  if (csp === null || typeof csp !== 'object') throw new DefinitionError(`${at}: csp must be an object of origin lists`);
  checkOptions(`${at} csp`, csp, CSP_KEYS);
  for (const key of CSP_KEYS) {
    const list = csp[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new DefinitionError(`${at}: csp.${key} must be an array of origins`);
    list.forEach((origin, i) => {
      if (typeof origin !== 'string' || !ORIGIN.test(origin)) {
        throw new DefinitionError(
          `${at}: csp.${key}[${i}] ${JSON.stringify(origin)} is not an origin the spec allows (scheme://host[:port] over http, https, ws or wss; https://*.example.com for subdomains)`,
        );
      }
    });
  }
}

function checkPermissions(permissions: AppPermissions, at: string): void {
  if (permissions === null || typeof permissions !== 'object') throw new DefinitionError(`${at}: permissions must be an object`);
  checkOptions(`${at} permissions`, permissions, PERMISSION_KEYS);
  for (const key of PERMISSION_KEYS) {
    const value = permissions[key];
    if (value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length > 0) throw new DefinitionError(`${at}: permissions.${key} must be {}`);
  }
}

/** A tool's `ui` option, as `_meta.ui` will say it. */
export function checkToolUi(ui: ToolUi, where: string): { resourceUri: string; visibility?: AppToolVisibility[] } {
  const out = typeof ui === 'string' ? { resourceUri: ui } : ui;
  if (out === null || typeof out !== 'object') throw new DefinitionError(`${where}: ui must be a ui:// URI or { resourceUri, visibility }`);
  if (!isUiUri(out.resourceUri)) throw new DefinitionError(`${where}: ui names ${JSON.stringify(out.resourceUri)}, which is not a ui:// URI`);
  if (out.visibility !== undefined) {
    const v = out.visibility;
    if (!Array.isArray(v) || v.length === 0 || v.some((x) => !VISIBILITIES.includes(x)) || new Set(v).size !== v.length) {
      throw new DefinitionError(`${where}: ui.visibility must list "model", "app" or both, once each`);
    }
  }
  return out.visibility ? { resourceUri: out.resourceUri, visibility: [...out.visibility] } : { resourceUri: out.resourceUri };
}
