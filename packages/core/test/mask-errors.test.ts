/**
 * maskErrors: an unexpected error thrown by a tool reaches the client as a generic isError result,
 * whole in the log; a ToolError, a returned toolError, invalid arguments, an McpError and the client
 * errors are told as they are. In both eras, in a task, in a mounted server, and from MCPX_MASK_ERRORS.
 */
import 'reflect-metadata';
import { IsInt } from 'class-validator';
import { connect, memoryLogger, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { ErrorCode, Field, McpError, Server, Tool, ToolError, createEngine, mount, toolError, type RequestContext } from '../src';

class Count {
  @Field() @IsInt() n!: number;
}

const SECRET = 'password authentication failed for user "billing_rw" at db-7.internal';

@Server({ name: 'masked', version: '1.0.0' })
class Failing {
  @Tool({ taskSupport: 'optional' }) leak(_input: void): string {
    throw new Error(SECRET);
  }
  @Tool() told(_input: void): string {
    throw new ToolError('The quota is spent; try again tomorrow');
  }
  @Tool() returned(_input: void) {
    return toolError('Nothing to do');
  }
  @Tool() protocol(_input: void): string {
    throw new McpError(ErrorCode.InvalidParams, 'no such region');
  }
  @Tool() counted(input: Count) {
    return `n=${input.n}`;
  }
  @Tool() async asks(_input: void, ctx: RequestContext) {
    return (await ctx.elicit('Proceed?', { type: 'object', properties: {} })).action;
  }
  @Tool() thrown_string(_input: void): string {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless handler may throw
    throw 'a bare string';
  }
}

const GENERIC = (name: string) => ({ isError: true, content: [{ type: 'text', text: `Tool "${name}" failed with an unexpected error; the server's log has the details` }] });
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('maskErrors', () => {
  it('hides what an unexpected error says and keeps the rest as it is (2025-11-25)', async () => {
    const log = memoryLogger('warn');
    const client = await connect(new Failing(), { logger: log.logger, maskErrors: true });
    expect(await client.callTool('leak')).toEqual(GENERIC('leak'));
    expect(await client.callTool('thrown_string')).toEqual(GENERIC('thrown_string'));
    expect(log.lines.filter((l) => l.msg === 'tool failed').map((l) => [l.tool, l.err?.message ?? l.err])).toEqual([
      ['leak', SECRET],
      ['thrown_string', 'a bare string'],
    ]);
    expect(textOf(await client.callTool('told'))).toBe('The quota is spent; try again tomorrow');
    expect(await client.callTool('returned')).toEqual({ isError: true, content: [{ type: 'text', text: 'Nothing to do' }] });
    expect(await rpcErrorOf(client.callTool('protocol'))).toMatchObject({ code: ErrorCode.InvalidParams, message: 'no such region' });
    const invalid = await client.callTool('counted', { n: 'x' });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('n');
    expect(textOf(invalid)).not.toContain('unexpected error');
    // No elicitation capability declared: the client error says so, masked or not.
    const capability = await client.callTool('asks');
    expect(capability.isError).toBe(true);
    expect(textOf(capability)).toMatch(/elicitation/);
    client.close();
  });

  it('masks under 2026-07-28 too', async () => {
    const client = await connect(new Failing(), { ...quietOptions(), maskErrors: true, protocolVersion: '2026-07-28' });
    expect(await client.callTool('leak')).toMatchObject(GENERIC('leak'));
    expect(textOf(await client.callTool('told'))).toBe('The quota is spent; try again tomorrow');
    client.close();
  });

  it("masks a task's failed result", async () => {
    const client = await connect(new Failing(), { ...quietOptions(), maskErrors: true });
    const created = await client.request<{ task: { taskId: string } }>('tools/call', { name: 'leak', arguments: {}, task: {} });
    expect(await client.request('tasks/result', { taskId: created.task.taskId })).toMatchObject(GENERIC('leak'));
    client.close();
  });

  it("applies the serving engine's setting to a mounted server's tools", async () => {
    @Server({ name: 'outer', version: '1.0.0' })
    class Outer {}
    const outer = createEngine(new Outer(), { ...quietOptions(), maskErrors: true });
    mount(outer, 'db', new Failing());
    const client = await connect(outer);
    expect(await client.callTool('db_leak')).toEqual(GENERIC('db_leak'));
    client.close();
  });

  it('is off by default, and MCPX_MASK_ERRORS turns it on when the option is not given', async () => {
    const plain = await connect(new Failing(), quietOptions());
    expect(textOf(await plain.callTool('leak'))).toBe(SECRET);
    plain.close();
    const before = process.env.MCPX_MASK_ERRORS;
    process.env.MCPX_MASK_ERRORS = 'true';
    try {
      const fromEnv = await connect(new Failing(), quietOptions());
      expect(await fromEnv.callTool('leak')).toEqual(GENERIC('leak'));
      fromEnv.close();
      const overridden = await connect(new Failing(), { ...quietOptions(), maskErrors: false });
      expect(textOf(await overridden.callTool('leak'))).toBe(SECRET);
      overridden.close();
    } finally {
      if (before === undefined) delete process.env.MCPX_MASK_ERRORS;
      else process.env.MCPX_MASK_ERRORS = before;
    }
  });
});
