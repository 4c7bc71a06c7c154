import { McpError } from '../protocol/errors';
import type { CompleteResult } from '../protocol/types';
import type { Completer } from '../metadata/options';
import type { Answers, SharedResults } from './method-types';
import { objectParam, requireCapability, stringParam } from '../context/params';
import { visibleEntry } from './list-page';

const empty = () => ({ completion: { values: [], total: 0, hasMore: false } });

/** completion/complete for a prompt argument (ref/prompt) or a template variable (ref/resource). */
export const complete: Answers<SharedResults['completion/complete']> = async (params, ctx) => {
  requireCapability(ctx, 'completions');
  const method = 'completion/complete';
  const ref = objectParam(params, 'ref', method);
  const argument = objectParam(params, 'argument', method);
  if (!ref) throw McpError.invalidParams(`${method}: "ref" must be an object and is missing`);
  if (!argument) throw McpError.invalidParams(`${method}: "argument" must be an object and is missing`);
  const argName = stringParam(argument, 'name', `${method} argument`);
  const value = stringParam(argument, 'value', `${method} argument`);
  const context = objectParam(params, 'context', method);
  const resolved = (context && objectParam(context, 'arguments', `${method} context`)) ?? {};
  const registry = ctx.engine.registry;

  let completer: Completer | undefined;
  if (ref.type === 'ref/prompt') {
    const name = stringParam(ref, 'name', `${method} ref`);
    const named = visibleEntry(registry.prompts.get(name), ctx, `prompt "${name}"`);
    const prompt = named instanceof Promise ? await named : named;
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${name}`);
    if (!prompt.definition.arguments?.some((a) => a.name === argName)) {
      throw McpError.invalidParams(`Prompt "${name}" has no argument "${argName}"`);
    }
    completer = prompt.completers.get(argName);
  } else if (ref.type === 'ref/resource') {
    const uri = stringParam(ref, 'uri', `${method} ref`);
    const named = visibleEntry(registry.templates.get(uri), ctx, `resource template ${uri}`);
    const template = named instanceof Promise ? await named : named;
    if (!template) {
      const resource = visibleEntry(registry.resources.get(uri), ctx, `resource ${uri}`);
      if (resource instanceof Promise ? await resource : resource) return empty(); // a fixed URI has nothing to complete
      throw McpError.invalidParams(`Unknown resource template: ${uri}`);
    }
    if (!template.template.variableNames.includes(argName)) {
      throw McpError.invalidParams(`Resource template ${uri} has no variable "${argName}"`);
    }
    completer = template.completers.get(argName);
  } else {
    throw McpError.invalidParams(`${method}: "ref.type" must be "ref/prompt" or "ref/resource", got ${JSON.stringify(ref.type)}`);
  }
  if (!completer) return empty();
  const values = await completer(value, { arguments: stringsOnly(resolved) });
  return toCompleteResult(values);
};

function stringsOnly(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Normalises what a completer returns into the spec's shape: at most 100 values. */
export function toCompleteResult(values: string[] | { values: string[]; total?: number; hasMore?: boolean }): CompleteResult {
  const list = Array.isArray(values) ? values : values.values;
  const strings = list.filter((v): v is string => typeof v === 'string');
  const total = Array.isArray(values) ? strings.length : (values.total ?? strings.length);
  const page = strings.slice(0, 100);
  const hasMore = Array.isArray(values) ? strings.length > 100 : (values.hasMore ?? strings.length > 100);
  return { completion: { values: page, total, hasMore } };
}
