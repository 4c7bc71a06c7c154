/** The MCP Apps extension (SEP-1865): interactive HTML views a host renders for a tool's results. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The one content type of an app view. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat tool `_meta` key older hosts read (deprecated by the spec in favour of `_meta.ui.resourceUri`). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Origins a view may reach; each maps to CSP directives the host builds (nothing outside them is allowed). */
export interface AppCsp {
  /** fetch, XHR, WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Images, scripts, styles, fonts, media. `https://*.example.com` covers its subdomains. */
  resourceDomains?: string[];
  /** Nested frames (`frame-src`). */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** Browser features a view asks for; the host may grant them (the view feature-detects either way). */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** What `_meta.ui` of a view resource says: how the host sandboxes and frames it. */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is the host's to define. */
  domain?: string;
  /** Whether the host draws a border and background around the view. */
  prefersBorder?: boolean;
}

/** One view of `@AppResource`: a `ui://` resource holding an HTML5 document. */
export interface AppResourceOptions extends AppResourceMeta {
  /** `ui://<server>/<view>`. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /**
   * The document: inline HTML, or a function that makes it (read on each `resources/read`, e.g. a
   * bundle your build writes). Give this or `file`.
   */
  html?: string | (() => string | Promise<string>);
  /**
   * A file holding the document (one self-contained HTML file, such as a bundler's single-file
   * output), relative to the file of the module that declares the class; read when the server starts.
   */
  file?: string;
}

/** Who may call a tool with a view: the model (through the host), the view itself, or both (the default). */
export type AppToolVisibility = 'model' | 'app';

/** A tool's view: `@Tool({ ui: 'ui://notes/board' })`, or with who may call it. */
export type ToolUi = string | { resourceUri: string; visibility?: AppToolVisibility[] };
