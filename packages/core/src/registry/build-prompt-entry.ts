import type { Middleware } from '../context/middleware';
import type { RateLimitOptions } from '../policies/rate-limit';
import { getMetadataStorage } from 'class-validator';
import type { Prompt, PromptArgument } from '../protocol/types';
import type { PromptOptions } from '../metadata/options';
import { validateInput, type ValidationIssue } from '../schema/class-validation';
import { getFieldOptions } from '../schema/field';
import { compact } from '../compact';
import { DefinitionError } from '../definition-error';
import { middlewareOf, rateLimitsOf, scopesOf, visibilityOf } from './entry-scopes';
import type { InputClass, PromptEntry, PromptHandler, Validator } from './entry-types';

export interface PromptSpec extends PromptOptions {
  name: string;
  handler: PromptHandler;
  /** Middleware around this entry's handler only (after the server-wide chain), outermost first. */
  middleware?: readonly Middleware[];
  /** Rate limits counted for this entry alone (what `@RateLimit` gives a decorated one). */
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
  source?: string;
}

export function buildPromptEntry(spec: PromptSpec): PromptEntry {
  const source = spec.source ?? `prompt "${spec.name}"`;
  if (!spec.name) throw new DefinitionError(`${source}: a prompt needs a name`);
  if (spec.input && spec.arguments) throw new DefinitionError(`${source}: give either an argument class or "arguments", not both`);
  let args: PromptArgument[] | undefined;
  let validateArguments: Validator;
  if (spec.input) {
    args = promptArgumentsOf(spec.input);
    const cls = spec.input;
    validateArguments = (value, unknown) => validateInput(cls, value, unknown);
  } else {
    args = spec.arguments?.map((a) => compact({ ...a }));
    const declared = args ?? [];
    validateArguments = async (value) => {
      const given = value as Record<string, unknown>;
      const issues: ValidationIssue[] = [];
      for (const a of declared) {
        // Own keys only: an argument named `constructor` or `toString` is not on the prototype.
        const v = Object.hasOwn(given, a.name) ? given[a.name] : undefined;
        if (v === undefined) {
          if (a.required) issues.push({ path: a.name, message: `${a.name} is required` });
        } else if (typeof v !== 'string') issues.push({ path: a.name, message: `${a.name} must be a string` });
      }
      for (const key of Object.keys(given)) {
        if (!declared.some((a) => a.name === key)) issues.push({ path: key, message: `${key} is not an argument of this prompt` });
      }
      return issues.length ? { ok: false, issues } : { ok: true, value: given };
    };
  }
  const completers = new Map(Object.entries(spec.complete ?? {}));
  for (const name of completers.keys()) {
    if (!args?.some((a) => a.name === name)) {
      throw new DefinitionError(`${source}: completer for "${name}", which is not an argument of the prompt`);
    }
  }
  const definition: Prompt = compact({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: args,
    icons: spec.icons,
    _meta: spec._meta,
  });
  return {
    definition,
    handler: spec.handler,
    validateArguments,
    completers,
    source,
    scopes: scopesOf(spec.scopes, source),
    ...middlewareOf(spec.middleware, source),
    ...visibilityOf(spec, source),
    ...rateLimitsOf(spec.rateLimit, source),
  };
}

/** Prompt arguments are strings; each validated property of the class becomes one. */
function promptArgumentsOf(cls: InputClass): PromptArgument[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const optional = new Set<string>();
  const names: string[] = [];
  for (const m of metas) {
    if (!names.includes(m.propertyName)) names.push(m.propertyName);
    if (m.type === 'conditionalValidation' && m.name === 'isOptional') optional.add(m.propertyName);
  }
  return names.map((name) => {
    const field = getFieldOptions(cls, name);
    return compact({ name, title: field?.title, description: field?.description, required: !optional.has(name) });
  });
}
