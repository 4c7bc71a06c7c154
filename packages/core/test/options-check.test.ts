import 'reflect-metadata';
import pino from 'pino';
import { Server, Tool, UnknownOptionError, createEngine, isMcpxError, type ServerOptions } from '../src';
import { checkOptions } from '../src/transport';
import { closestKey } from '../src/metadata/check-options';
import type { Middleware } from '../src/context/middleware';
import { connect } from '@mcpx/testing';
import { definitionFailure } from '../../cli/src/load-entry';

const silent = { logger: pino({ level: 'silent' }) };

/** What checkOptions threw, or undefined. */
function thrownBy(fn: () => unknown): UnknownOptionError | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof UnknownOptionError) return err;
    throw err;
  }
  return undefined;
}

describe('checkOptions', () => {
  const known = ['maxRequestsInFlight', 'pageSize', 'logger', 'logLevel', 'path', 'port', 'host'];

  it('passes an object of known keys, an empty one, and none', () => {
    expect(() => checkOptions('listen()', { pageSize: 5, port: 0 }, known)).not.toThrow();
    expect(() => checkOptions('listen()', {}, known)).not.toThrow();
    expect(() => checkOptions('listen()', undefined, known)).not.toThrow();
  });

  it('names an unknown key and where it was given, with the known key it is within two edits of', () => {
    const err = thrownBy(() => checkOptions('listen()', { maxRequestInFlight: 5 }, known))!;
    expect(err.message).toBe('unknown option `maxRequestInFlight` in listen(); did you mean `maxRequestsInFlight`?');
    expect([err.name, err.code, err.where, err.unknown]).toEqual([
      'UnknownOptionError',
      'MCPX_OPTION_UNKNOWN',
      'listen()',
      [{ name: 'maxRequestInFlight', suggestion: 'maxRequestsInFlight' }],
    ]);
    expect(isMcpxError(err, 'MCPX_OPTION_UNKNOWN')).toBe(true);
  });

  it('suggests for a case difference, a swap of two letters, and two edits; not beyond', () => {
    expect(closestKey('PageSize', known)).toBe('pageSize');
    expect(closestKey('MAXREQUESTSINFLIGHT', known)).toBe('maxRequestsInFlight');
    expect(closestKey('pgaeSize', known)).toBe('pageSize');
    expect(closestKey('pageSz', known)).toBe('pageSize');
    expect(closestKey('pagSz', known)).toBeUndefined();
    expect(closestKey('stateless', known)).toBeUndefined();
    // Two edits would turn any short name into another: a suggestion keeps some of the name.
    expect(closestKey('ab', ['cd'])).toBeUndefined();
    // The nearest wins: `hots` is one swap from host and two edits from port.
    expect(closestKey('hots', known)).toBe('host');
  });

  it('names no suggestion when nothing is close', () => {
    expect(thrownBy(() => checkOptions('serveStdio()', { bogus: true }, known))!.message).toBe('unknown option `bogus` in serveStdio()');
  });

  it('names every unknown key at once', () => {
    const err = thrownBy(() => checkOptions('listen()', { prot: 1, pageSize: 2, bogus: 3 }, known))!;
    expect(err.message).toBe('unknown options in listen(): `prot` (did you mean `port`?), `bogus`');
    expect(err.unknown).toEqual([{ name: 'prot', suggestion: 'port' }, { name: 'bogus' }]);
  });

  it('checks a key whatever its value, undefined included', () => {
    expect(thrownBy(() => checkOptions('listen()', { pageSise: undefined }, known))!.message).toBe('unknown option `pageSise` in listen(); did you mean `pageSize`?');
  });
});

describe('@Server options', () => {
  it('an unknown one is an error when the engine is built, naming the option, the class and the likely key', () => {
    @Server({ name: 'typo', version: '1.0.0', titel: 'Typo' } as ServerOptions)
    class Typo {
      @Tool()
      ping() {
        return 'pong';
      }
    }
    expect(() => createEngine(new Typo(), silent)).toThrow(new UnknownOptionError('@Server() on Typo', [{ name: 'titel', suggestion: 'title' }]));
    expect(() => createEngine(new Typo(), silent)).toThrow('unknown option `titel` in @Server() on Typo; did you mean `title`?');
  });

  it('a case difference is suggested too, and the in-process client refuses it as well', async () => {
    @Server({ name: 'cased', version: '1.0.0', Instructions: 'Use it well' } as ServerOptions)
    class Cased {}
    await expect(connect(new Cased(), silent)).rejects.toThrow('unknown option `Instructions` in @Server() on Cased; did you mean `instructions`?');
  });

  it('is checked on every composed object, not only the one giving the identity', () => {
    @Server({ name: 'first', version: '1.0.0' })
    class First {}
    @Server({ name: 'second', version: '1.0.0', websiteURL: 'https://example.com' } as ServerOptions)
    class Second {}
    expect(() => createEngine([new First(), new Second()], silent)).toThrow('unknown option `websiteURL` in @Server() on Second; did you mean `websiteUrl`?');
  });

  it('accepts every known key: the Implementation fields, instructions, middleware and extensions', () => {
    const passThrough: Middleware = (_ctx, next) => next();
    @Server({
      name: 'full',
      title: 'Full',
      version: '2.0.0',
      description: 'Every option',
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
      websiteUrl: 'https://example.com',
      instructions: 'Call ping first',
      middleware: [passThrough],
      extensions: [],
    })
    class Full {}
    expect(() => createEngine(new Full(), silent)).not.toThrow();
  });
});

describe('the mcpx command', () => {
  it('reports an unknown @Server option as an invalid server definition: one line, exit 2', () => {
    const err = new UnknownOptionError('@Server() on Typo', [{ name: 'titel', suggestion: 'title' }]);
    const failure = definitionFailure(err);
    expect([failure?.message, failure?.exitCode, failure?.cause]).toEqual(['invalid server definition: unknown option `titel` in @Server() on Typo; did you mean `title`?', 2, err]);
  });
});

describe('serverInfo', () => {
  const passThrough: Middleware = (_ctx, next) => next();
  const identity = {
    name: 'identity',
    title: 'Identity',
    version: '3.1.0',
    description: 'Says who it is',
    icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
    websiteUrl: 'https://example.com/identity',
  };

  @Server({ ...identity, instructions: 'Ask who it is', middleware: [passThrough], extensions: [] })
  class Identity {
    @Tool()
    who() {
      return 'identity';
    }
  }

  it('carries only the Implementation fields the spec defines; instructions go to their own field (2025-11-25 initialize)', async () => {
    const client = await connect(new Identity(), silent);
    const result = client.initializeResult!;
    expect(result.serverInfo).toEqual(identity);
    expect(Object.keys(result.serverInfo).sort()).toEqual(['description', 'icons', 'name', 'title', 'version', 'websiteUrl']);
    expect(result.instructions).toBe('Ask who it is');
    client.close();
  });

  it('leaves out what is not set', async () => {
    @Server({ name: 'bare', version: '0.1.0', middleware: [] })
    class Bare {}
    const client = await connect(new Bare(), silent);
    expect(client.initializeResult!.serverInfo).toEqual({ name: 'bare', version: '0.1.0' });
    expect(client.initializeResult!).not.toHaveProperty('instructions');
    client.close();
  });

  it('is the same in the _meta of a 2026-07-28 result', async () => {
    const client = await connect(new Identity(), { ...silent, protocolVersion: '2026-07-28' });
    const discovered = await client.discover();
    expect(discovered._meta['io.modelcontextprotocol/serverInfo']).toEqual(identity);
    expect(discovered.instructions).toBe('Ask who it is');
    client.close();
  });
});
