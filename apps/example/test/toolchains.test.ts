import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { createEngine, DefinitionError } from '@mcpx/core';
import { definitionWarnings } from '@mcpx/core/registry';
import { connect, quietOptions } from '@mcpx/testing';
import { RoomServer as RoomServerWithMetadata } from '../../../docs/examples/toolchains-without-metadata';

// docs/toolchains.md: the example written for compilers without decorator metadata, compiled by
// esbuild (what tsx and vitest 3 run) and by ts-jest (tsc), lists and serves the same.

const examplesDir = join(__dirname, '..', '..', '..', 'docs', 'examples');

/** Compiles a docs example with esbuild as tsx does, and runs it in this test's module registry. */
function esbuilt(file: string): Record<string, new () => object> {
  const { code } = transformSync(readFileSync(join(examplesDir, file), 'utf8'), {
    loader: 'ts',
    format: 'cjs',
    tsconfigRaw: { compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } },
  });
  expect(code).not.toContain('design:paramtypes');
  const module = { exports: {} as Record<string, new () => object> };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  return module.exports;
}

async function listAndCall(server: object) {
  const client = await connect(server, quietOptions());
  try {
    const [tool] = (await client.listTools()).tools;
    const ok = await client.callTool('book', { room: 'A', start: '2024-05-01T09:30:00Z', attendees: [{ name: 'Ada' }] });
    const bad = await client.callTool('book', { room: 'A', start: 'soon', attendees: [{}] });
    return { schema: tool!.inputSchema, ok, bad };
  } finally {
    client.close();
  }
}

describe('docs/toolchains.md', () => {
  it('toolchains-without-metadata.ts: esbuild output lists and serves exactly what tsc output does, with no warning', async () => {
    const { RoomServer } = esbuilt('toolchains-without-metadata.ts');
    const withoutMetadata = await listAndCall(new RoomServer!());
    expect(withoutMetadata).toEqual(await listAndCall(new RoomServerWithMetadata()));
    expect(withoutMetadata.ok.content).toEqual([{ type: 'text', text: 'A at 2024-05-01T09:30:00.000Z for 1' }]);
    expect(withoutMetadata.bad).toMatchObject({ isError: true });
    expect(definitionWarnings(createEngine(new RoomServer!(), { ...quietOptions(), strictDefinitions: true }))).toEqual([]);
  });

  it('the tools-input example, compiled by esbuild, fails with the message the page quotes', () => {
    const { TeamServer } = esbuilt('tools-input.ts');
    expect(() => createEngine(new TeamServer!(), quietOptions())).toThrow(DefinitionError);
    expect(() => createEngine(new TeamServer!(), quietOptions())).toThrow(
      /^TeamServer\.invite: cannot tell the tool's input class, because this code was compiled without decorator metadata/,
    );
    const page = readFileSync(join(examplesDir, '..', 'toolchains.md'), 'utf8');
    expect(page).toContain("TeamServer.invite: cannot tell the tool's input class, because this code was compiled without decorator metadata");
  });
});
