// Pins the names @mcpx/core exports at runtime, so an export is added or removed only on purpose.
// Type-only exports leave no runtime trace and are not pinned here.
const EXPORTS = [
  'CancelledError', 'ClientCapabilityError', 'ClientRequestError', 'ClientUnreachableError', 'Complete',
  'DEFAULT_ARGUMENT_LIMITS', 'DEFAULT_MESSAGE_LIMITS', 'DefinitionError', 'ElicitationSchemaError',
  'EntryList', 'ErrorCode', 'Field', 'INSUFFICIENT_SCOPE', 'InMemoryEventStore', 'InMemoryTaskStore',
  'InsufficientScopeError', 'InvalidTaskCursorError', 'LATEST_PROTOCOL_VERSION', 'LOGGING_LEVELS',
  'ManualClock', 'McpEngine', 'McpError', 'McpLogger', 'McpServer', 'Prompt', 'Registry', 'RequestContext',
  'Resource', 'ResourceTemplate', 'SUPPORTED_PROTOCOL_VERSIONS', 'Server', 'Session', 'TERMINAL_STATUSES',
  'TaskManager', 'Tool', 'ToolContext', 'UriTemplate', 'UriTemplateError', 'UrlElicitationRequiredError',
  'assistantMessage', 'audio', 'budgetError', 'buildPromptEntry', 'buildRegistry', 'buildResourceEntry',
  'buildTemplateEntry', 'buildToolEntry', 'checkArgumentLimits', 'checkElicitationSchema',
  'classToJsonSchema', 'classifyMessage', 'compact', 'compileJsonSchema', 'createEngine', 'decodeMessage',
  'definitionWarnings', 'embeddedResource', 'encodeMessage', 'errorResponse', 'eventId', 'formatIssues',
  'getFieldOptions', 'getServerOptions', 'image', 'isContentBlock', 'isLoggingLevel',
  'isSupportedProtocolVersion', 'isValidId', 'missingScopes', 'parseEventId', 'parseMessage', 'relatedTask',
  'resolveArgumentLimits', 'resolveMessageLimits', 'resourceLink', 'resultResponse', 'scanMessage',
  'scanObject', 'serverInfoOf', 'sessionLogId', 'systemClock', 'text', 'toCallToolResult',
  'toCompleteResult', 'toElicitationSchema', 'toGetPromptResult', 'toReadResourceResult', 'tooManyInFlight',
  'toolError', 'userMessage', 'validateElicitedContent', 'validateInput',
];

describe('@mcpx/core public API', () => {
  it('exports exactly the pinned names', () => {
    // require, not import: the module object itself, with no interop wrapper adding names.
    const core = require('../src/index') as Record<string, unknown>;
    expect(Object.keys(core).sort()).toEqual(EXPORTS);
  });

  it('keeps the pinned list sorted, so a diff shows the name that changed', () => {
    expect([...EXPORTS].sort()).toEqual(EXPORTS);
  });
});
