/** What a request names: its tool, prompt, resource URI or task. The request log and telemetry both read it. */
export interface RequestSubject {
  tool?: string;
  prompt?: string;
  uri?: string;
  taskId?: string;
}

/** Names longer than this (a client may send anything) are cut wherever they are recorded. */
const MAX_NAME = 200;

const NOTHING: RequestSubject = Object.freeze({});

/** The tool, prompt, resource URI or task `params` of `method` names, each cut to MAX_NAME. */
export function subjectOf(method: string, params: Record<string, unknown> | undefined): RequestSubject {
  if (!params) return NOTHING;
  switch (method) {
    case 'tools/call':
      return { tool: nameOf(params.name) };
    case 'prompts/get':
      return { prompt: nameOf(params.name) };
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return { uri: nameOf(params.uri) };
    case 'completion/complete': {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt') return { prompt: nameOf(ref.name) };
      if (ref?.type === 'ref/resource') return { uri: nameOf(ref.uri) };
      return NOTHING;
    }
    case 'tasks/get':
    case 'tasks/result':
    case 'tasks/cancel':
    case 'tasks/update':
      return { taskId: nameOf(params.taskId) };
    default:
      return NOTHING;
  }
}

function nameOf(value: unknown): string | undefined {
  return typeof value === 'string' ? cutName(value) : undefined;
}

/** A name as it may be recorded: at most MAX_NAME characters, an ellipsis marking the cut. */
export function cutName(value: string): string {
  return value.length > MAX_NAME ? `${value.slice(0, MAX_NAME)}…` : value;
}
