/**
 * @mcpx/proxy: a gateway. Other MCP servers (started over stdio, or reached over HTTP) served
 * through an mcpx server, each under its prefix, with mcpx's auth, scopes, middleware, rate
 * limits and telemetry in front of them. `mcpx proxy CONFIG` serves a configuration file in the
 * `mcpServers` shape that Claude Desktop, Cursor and VS Code use.
 */
export { addUpstreams, proxyServer, Gateway, type GatewayOptions, type ProxyServerOptions } from './gateway';
export { loadProxyConfig, parseProxyConfig, type ProxyConfig, type UpstreamConfig, type StdioUpstreamConfig, type HttpUpstreamConfig } from './config';
export { Upstream, type UpstreamState } from './upstream';
export { ProxyError } from './proxy-error';
