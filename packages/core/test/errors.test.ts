import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '../src';
import * as transport from '../src/transport';
import {
  CancelledError,
  ToolError,
  ClientCapabilityError,
  ClientRequestError,
  ClientUnreachableError,
  DefinitionError,
  InputRequired,
  McpError,
  McpxError,
  UnknownOptionError,
  isMcpxError,
} from '../src';
import { MCPX_ERROR_CODES, type McpxErrorCode } from '../src/errors';
import { ElicitationSchemaError, UriTemplateError } from '../src/exports/schema';
import { ClusterUnavailableError, InvalidTaskCursorError } from '../src/exports/stores';
import { SkillsError } from '../src/exports/registry';
import { InputPending } from '../src/protocol/input-required';
import { RequestStateError } from '../src/eras/modern/request-state';
import * as http from '@mcpx/http';
import * as testing from '@mcpx/testing';
import * as cli from '@mcpx/cli';
import * as openapi from '@mcpx/openapi';
import * as proxy from '@mcpx/proxy';
import { CliError, isDefinitionError } from '../../cli/src/errors';
import { RpcFailure } from '../../cli/src/client';
import { definitionFailure } from '../../cli/src/load-entry';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * One instance of every local error class, and of CliError once per code it carries. A new class
 * fails the tests below until it is added here, with its code in the catalog.
 */
const LOCAL: Record<string, () => McpxError> = {
  DefinitionError: () => new DefinitionError('Broken.tool: duplicate tool name "x"'),
  UriTemplateError: () => new UriTemplateError('unclosed expression', 5, 'file:{path'),
  ElicitationSchemaError: () => new ElicitationSchemaError('Form', [{ property: 'tags', reason: 'arrays of objects cannot be asked' }]),
  SkillsError: () => new SkillsError('skills: skills/x/SKILL.md: the name "y" must be the name of its folder ("x")'),
  UnknownOptionError: () => new UnknownOptionError('listen()', [{ name: 'prot', suggestion: 'port' }]),
  ClientCapabilityError: () => new ClientCapabilityError('no sampling', 'sampling'),
  ClientUnreachableError: () => new ClientUnreachableError('sampling/createMessage'),
  ClientRequestError: () => new ClientRequestError('sampling/createMessage', new McpError(core.ErrorCode.RequestTimeout, 'no answer')),
  InputRequired: () => new InputRequired({ state: 1 }),
  InputPending: () => new InputPending(),
  CancelledError: () => new CancelledError('user'),
  ToolError: () => new ToolError('The quota is spent'),
  RequestStateError: () => new RequestStateError('requestState has expired'),
  InvalidTaskCursorError: () => new InvalidTaskCursorError('Invalid cursor for tasks/list: "x"'),
  ClusterUnavailableError: () => new ClusterUnavailableError(),
  InvalidTokenError: () => new http.InvalidTokenError('the token is not active'),
  CliError: () => new CliError('--port must be an integer'),
  'CliError (exit 1)': () => new CliError('cannot listen on 127.0.0.1:3000: address already in use', 1),
  'CliError (unknown option)': () => new CliError("unknown option '--bogus'", 2, { code: 'MCPX_CLI_OPTION_UNKNOWN' }),
  OpenApiError: () => new openapi.OpenApiError('path parameter "id" may not be ".."'),
  ProxyError: () => new proxy.ProxyError('gateway.json: "github" uses ${GITHUB_TOKEN}, which is not set in the environment'),
  RpcFailure: () => new RpcFailure('tools/call', core.ErrorCode.InvalidParams, 'Unknown tool: x'),
};

/** Wire errors: a JSON-RPC `code` (number) a client receives, not an McpxError. */
const WIRE = ['InsufficientScopeError', 'McpError', 'RpcError', 'UrlElicitationRequiredError'];

const classNameOf = (key: string) => key.split(' ')[0]!;

/** Every Error class a package exports at runtime, by name. */
function exportedErrorClasses(): Map<string, Function> {
  const found = new Map<string, Function>();
  for (const entry of [core, transport, http, testing, cli, openapi, proxy] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(entry)) {
      if (typeof value === 'function' && (value === Error || value.prototype instanceof Error)) found.set(name, value);
    }
  }
  return found;
}

describe('McpxError and the catalog', () => {
  it('every exported error class is an McpxError, except the wire errors', () => {
    const exported = exportedErrorClasses();
    exported.delete('McpxError');
    for (const [name, cls] of exported) {
      if (WIRE.includes(name)) expect(cls.prototype).not.toBeInstanceOf(McpxError);
      else {
        expect([name, cls.prototype instanceof McpxError]).toEqual([name, true]);
        expect(Object.keys(LOCAL).map(classNameOf)).toContain(name);
      }
    }
  });

  it('no error class in the packages extends Error, or another built-in error, on its own', () => {
    const offenders: string[] = [];
    for (const pkg of readdirSync(join(ROOT, 'packages'))) {
      const walk = (dir: string): void => {
        let entries;
        try {
          entries = readdirSync(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const path = join(dir, e.name);
          if (e.isDirectory()) walk(path);
          else if (e.name.endsWith('.ts')) {
            for (const m of readFileSync(path, 'utf8').matchAll(/class (\w+) extends (Error|TypeError|RangeError)\b/g)) offenders.push(m[1]!);
          }
        }
      };
      walk(join(ROOT, 'packages', pkg, 'src'));
    }
    // McpxError itself, and the two wire errors with a numeric JSON-RPC code; everything else extends McpxError.
    expect(offenders.sort()).toEqual(['McpError', 'McpxError', 'RpcError']);
  });

  it.each(Object.entries(LOCAL))('%s: an McpxError named after its class, with a code from the catalog', (key, make) => {
    const err = make();
    expect(err).toBeInstanceOf(McpxError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(classNameOf(key));
    expect(Object.keys(MCPX_ERROR_CODES)).toContain(err.code);
    expect(isMcpxError(err)).toBe(true);
    expect(isMcpxError(err, err.code)).toBe(true);
  });

  it('gives each code to one class, and every code in the catalog to some class', () => {
    const owner = new Map<string, string>();
    for (const [key, make] of Object.entries(LOCAL)) {
      const code = make().code;
      const cls = classNameOf(key);
      expect([code, owner.get(code) ?? cls]).toEqual([code, cls]);
      owner.set(code, cls);
    }
    expect([...owner.keys()].sort()).toEqual(Object.keys(MCPX_ERROR_CODES).sort());
  });

  it('is one frozen catalog of MCPX_ codes, each with a one-line meaning', () => {
    expect(Object.isFrozen(MCPX_ERROR_CODES)).toBe(true);
    for (const [code, meaning] of Object.entries(MCPX_ERROR_CODES)) {
      expect(code).toMatch(/^MCPX_[A-Z]+(_[A-Z]+)*$/);
      expect(meaning).toMatch(/^[A-Z].*\S$/);
      expect(meaning).not.toContain('\n');
    }
  });

  it('keeps a cause, and names a subclass of a subclass after itself', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new ClusterUnavailableError('Redis is unavailable', { cause }).cause).toBe(cause);
    expect('cause' in new CancelledError()).toBe(false);
    class NoSuchTeam extends DefinitionError {}
    const err = new NoSuchTeam('no team');
    expect([err.name, err.code, err instanceof DefinitionError]).toEqual(['NoSuchTeam', 'MCPX_DEFINITION', true]);
  });

  it('moves the JSON-RPC code a local error carries to rpcCode; wire errors keep theirs as code', () => {
    const failure = LOCAL.ClientRequestError!() as ClientRequestError;
    expect([failure.code, failure.rpcCode, (failure.cause as McpError).code]).toEqual(['MCPX_CLIENT_REQUEST', core.ErrorCode.RequestTimeout, core.ErrorCode.RequestTimeout]);
    expect(new McpError(core.ErrorCode.InvalidParams, 'bad').code).toBe(core.ErrorCode.InvalidParams);
    expect(isMcpxError(new McpError(core.ErrorCode.InvalidParams, 'bad'))).toBe(false);
  });
});

/** DefinitionError as another copy of @mcpx/core defines it (the one a server's entry file loads, say). */
function otherCopy(): { DefinitionError: typeof DefinitionError; McpxError: typeof McpxError } {
  let loaded!: { DefinitionError: typeof DefinitionError; McpxError: typeof McpxError };
  jest.isolateModules(() => {
    loaded = { ...require('../src/definition-error'), ...require('../src/errors') };
  });
  return loaded;
}

describe('isMcpxError', () => {
  it('recognises an error from another copy of the package by its code, where instanceof cannot', () => {
    const other = otherCopy();
    const err = new other.DefinitionError('Broken.tool: duplicate tool name "x"');
    expect(other.McpxError).not.toBe(McpxError);
    expect(err).not.toBeInstanceOf(DefinitionError);
    expect(isMcpxError(err)).toBe(true);
    expect(isMcpxError(err, 'MCPX_DEFINITION')).toBe(true);
    expect(isMcpxError(err, 'MCPX_URI_TEMPLATE')).toBe(false);
  });

  it('does not go by name, nor take a code outside the catalog, nor anything but an Error', () => {
    const named = Object.assign(new Error('x'), { name: 'DefinitionError' });
    expect(isMcpxError(named)).toBe(false);
    expect(isMcpxError(named, 'MCPX_DEFINITION')).toBe(false);
    expect(isMcpxError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isMcpxError(Object.assign(new Error('x'), { code: 'MCPX_NOT_A_CODE' }))).toBe(false);
    expect(isMcpxError({ code: 'MCPX_DEFINITION', message: 'x' }, 'MCPX_DEFINITION')).toBe(false);
    expect(isMcpxError(undefined)).toBe(false);
  });
});

describe("the CLI's definition errors", () => {
  it('are recognised by code, from any copy of @mcpx/core', () => {
    const other = otherCopy();
    for (const err of [new DefinitionError('a'), new UriTemplateError('bad', 0, '{'), new ElicitationSchemaError('F', []), new other.DefinitionError('b')]) {
      expect(isDefinitionError(err)).toBe(true);
    }
    expect(isDefinitionError(Object.assign(new Error('a'), { name: 'DefinitionError' }))).toBe(false);
    expect(isDefinitionError(new ClusterUnavailableError())).toBe(false);
  });

  it('become one usage line, exit 2, keeping the definition error as the cause', () => {
    const original = new (otherCopy().DefinitionError)('BrokenServer.second: duplicate tool name "same"\n  declared twice');
    const failure = definitionFailure(original);
    expect(failure).toBeInstanceOf(CliError);
    expect([failure?.message, failure?.exitCode, failure?.code, failure?.cause]).toEqual([
      'invalid server definition: BrokenServer.second: duplicate tool name "same" declared twice',
      2,
      'MCPX_CLI_USAGE',
      original,
    ]);
    expect(definitionFailure(Object.assign(new Error('a'), { name: 'DefinitionError' }))).toBeUndefined();
  });
});

describe('the errors entry', () => {
  it('imports nothing but the wire codes, which import nothing: the CLI loads it without the framework', () => {
    const imports = (file: string) => [...readFileSync(join(__dirname, '..', 'src', file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gm)].map((m) => m[1]);
    expect(imports('errors.ts')).toEqual(['./protocol/errors']);
    expect(imports('protocol/errors.ts')).toEqual([]);
  });

  it('docs/errors.md lists every code', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
    const missing = (Object.keys(MCPX_ERROR_CODES) as McpxErrorCode[]).filter((code) => !doc.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });
});
