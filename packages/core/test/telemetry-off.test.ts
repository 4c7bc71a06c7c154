/**
 * With no OpenTelemetry SDK registered and no providers given, telemetry is off: no tracer, no
 * request telemetry built, a non-recording `ctx.span`, no trace ids on log lines, and an SDK's
 * exporter that nobody registered sees nothing. (Each jest file has its own globals: nothing
 * registered elsewhere reaches this one.)
 */
import { propagation, trace } from '@opentelemetry/api';
import { connect, memoryLogger } from '@mcpx/testing';
import { createEngine } from '../src';
import { Traced } from './telemetry-fixture';
import { otelKit } from './telemetry-kit';

describe('telemetry with no SDK', () => {
  it('builds nothing per request, and ctx.span does not record', async () => {
    // The global API is untouched: no provider, no propagator, no context manager.
    expect(trace.getTracerProvider().getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    expect(propagation.fields()).toEqual([]);
    const kit = otelKit(); // an SDK that exists but is registered nowhere
    const { logger, lines } = memoryLogger('info');
    const engine = createEngine(new Traced(), { logger });
    expect(engine.telemetry.tracer()).toBeUndefined();
    expect(engine.telemetry.startRequest('tools/call', 1, { name: 'greet' }, {})).toBeUndefined();

    const client = await connect(engine);
    const result = await client.callTool('recording');
    expect(result.content).toEqual([{ type: 'text', text: 'recording=false valid=false' }]);
    await client.callTool('greet', { name: 'Ada' });
    expect(engine.telemetry.requestsActive).toBe(0);

    const requestLine = lines.find((l) => l.msg === 'mcp request' && l.tool === 'greet');
    expect(requestLine).toBeDefined();
    expect(requestLine).not.toHaveProperty('trace_id');
    expect(lines.find((l) => l.msg === 'greeting')).not.toHaveProperty('trace_id');
    expect(kit.spans()).toEqual([]);
    expect(await kit.points('mcp.server.operation.duration')).toEqual([]);
    // The live counts still move (they cost an increment): the gauges read them once a meter is there.
    expect(engine.telemetry.sessionsActive).toBe(1);
    client.close();
    expect(engine.telemetry.sessionsActive).toBe(0);
    await kit.shutdown();
  });

  it('an engine given no providers picks up a tracer provider registered later', async () => {
    const { logger } = memoryLogger('silent');
    const engine = createEngine(new Traced(), { logger });
    expect(engine.telemetry.tracer()).toBeUndefined();
    const kit = otelKit();
    trace.setGlobalTracerProvider(kit.tracerProvider);
    try {
      expect(engine.telemetry.tracer()).toBeDefined();
      const client = await connect(engine);
      await client.callTool('greet', { name: 'Bo' });
      expect(kit.span('tools/call greet').attributes['gen_ai.tool.name']).toBe('greet');
      client.close();
    } finally {
      trace.disable();
      await kit.shutdown();
    }
  });
});
