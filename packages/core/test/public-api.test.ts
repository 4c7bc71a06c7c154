// Pins the names @mcpx/core and @mcpx/core/transport export at runtime, so an export is added,
// removed or moved between them only on purpose. Type-only exports leave no runtime trace and are not pinned here.

/** The main entry: what a server author uses. */
const EXPORTS = [
  'CancelledError', 'ClientCapabilityError', 'ClientRequestError', 'ClientUnreachableError', 'ClusterUnavailableError', 'Complete',
  'DEFAULT_ARGUMENT_LIMITS', 'DefinitionError', 'ElicitationSchemaError', 'EntryList', 'ErrorCode', 'Field',
  'INSUFFICIENT_SCOPE', 'InMemoryEventStore', 'InMemoryTaskStore', 'InputRequired', 'InsufficientScopeError',
  'InvalidTaskCursorError', 'MCPX_ERROR_CODES', 'ManualClock', 'McpError', 'McpLogger', 'McpServer', 'McpxError', 'Prompt', 'Registry',
  'RequestContext', 'Resource', 'ResourceTemplate', 'Server', 'Session', 'TERMINAL_STATUSES', 'Tool',
  'ToolContext', 'UnknownOptionError', 'UriTemplate', 'UriTemplateError', 'UrlElicitationRequiredError', 'UseMiddleware', 'assistantMessage',
  'audio', 'buildPromptEntry', 'buildResourceEntry', 'buildTemplateEntry', 'buildToolEntry',
  'checkElicitationSchema', 'classToJsonSchema', 'compileJsonSchema', 'createEngine', 'definitionWarnings',
  'embeddedResource', 'formatIssues', 'getFieldOptions', 'getServerOptions', 'image', 'isContentBlock', 'isMcpxError',
  'relatedTask', 'resourceLink', 'semconv', 'streamWriter', 'text', 'toElicitationSchema', 'toolError', 'userMessage',
  'validateElicitedContent', 'validateInput',
];

/** '@mcpx/core/errors': every error code and error base, loadable without the framework (the CLI's usage errors); all in the main entry too. */
const ERRORS_EXPORTS = ['ErrorCode', 'MCPX_ERROR_CODES', 'McpError', 'McpxError', 'UrlElicitationRequiredError', 'isMcpxError'];

/** '@mcpx/core/transport': what transports, stores and the engine's other drivers use. */
const TRANSPORT_EXPORTS = [
  'ALL_PROTOCOL_VERSIONS', 'ClusterLink', 'DEFAULT_MESSAGE_LIMITS', 'ENGINE_OPTION_KEYS', 'LATEST_PROTOCOL_VERSION', 'LOGGING_LEVELS', 'LazyAbort',
  'META', 'MODERN_PROTOCOL_VERSIONS', 'MRTR_METHODS', 'McpEngine', 'ModernFront', 'ModernRequests', 'ModernStream', 'RequestPipeline',
  'STDIO_ORIGIN', 'SUPPORTED_PROTOCOL_VERSIONS', 'TaskManager', 'budgetError', 'buildRegistry', 'checkArgumentLimits', 'checkOptions',
  'claimedVersion', 'classifyMessage', 'compact', 'decodeMessage', 'encodeMessage', 'envFlag', 'eraOf', 'errorResponse', 'eventId',
  'headerParameters',
  'isLoggingLevel', 'isModernProtocolVersion', 'isRefusal', 'isSupportedProtocolVersion', 'isValidId', 'missingScopes', 'optionKeys', 'parseEventId',
  'parseMessage', 'readModernClaim', 'resolveArgumentLimits', 'resolveMessageLimits', 'resultResponse', 'scanMessage',
  'scanObject', 'serverInfoOf', 'sessionLogId', 'startOtelFor', 'systemClock', 'toCallToolResult', 'toCompleteResult',
  'toGetPromptResult', 'toReadResourceResult', 'tooManyInFlight', 'unsupportedVersion',
];

describe('@mcpx/core public API', () => {
  it('exports exactly the pinned names', () => {
    // require, not import: the module object itself, with no interop wrapper adding names.
    const core = require('../src/index') as Record<string, unknown>;
    expect(Object.keys(core).sort()).toEqual(EXPORTS);
  });

  it('@mcpx/core/transport exports exactly the pinned names', () => {
    const transport = require('../src/transport') as Record<string, unknown>;
    expect(Object.keys(transport).sort()).toEqual(TRANSPORT_EXPORTS);
  });

  it('@mcpx/core/errors exports exactly the pinned names, the same objects as the main entry', () => {
    const errors = require('../src/errors') as Record<string, unknown>;
    const core = require('../src/index') as Record<string, unknown>;
    expect(Object.keys(errors).sort()).toEqual(ERRORS_EXPORTS);
    for (const name of ERRORS_EXPORTS) expect(errors[name]).toBe(core[name]);
  });

  it('the two entries share no name', () => {
    expect(EXPORTS.filter((name) => TRANSPORT_EXPORTS.includes(name))).toEqual([]);
  });

  it('keeps the pinned lists sorted, so a diff shows the name that changed', () => {
    expect([...EXPORTS].sort()).toEqual(EXPORTS);
    expect([...TRANSPORT_EXPORTS].sort()).toEqual(TRANSPORT_EXPORTS);
    expect([...ERRORS_EXPORTS].sort()).toEqual(ERRORS_EXPORTS);
  });
});
