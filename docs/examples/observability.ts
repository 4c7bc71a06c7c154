import 'reflect-metadata';
import { trace } from '@opentelemetry/api';
import { Field, Server, Tool, type RequestContext } from '@mcpx/core';
import { IsString } from 'class-validator';

const tracer = trace.getTracer('orders');

export class LookupInput {
  @Field({ description: 'The order to look up' })
  @IsString()
  orderId!: string;
}

@Server({ name: 'orders', version: '1.0.0' })
export class OrdersServer {
  @Tool({ description: 'Looks an order up' })
  async lookup(input: LookupInput, ctx: RequestContext) {
    // The request's span (`tools/call lookup`): add what your backend will want to filter on.
    ctx.span.setAttribute('orders.id', input.orderId);
    // A span of your own, a child of the request's, whatever context manager is (or is not) registered.
    const order = await tracer.startActiveSpan('orders.query', {}, ctx.traceContext, async (span) => {
      try {
        return await queryOrder(input.orderId);
      } finally {
        span.end();
      }
    });
    ctx.log.info('order found', { status: order.status }); // the line carries trace_id and span_id
    return order;
  }
}

async function queryOrder(orderId: string): Promise<{ orderId: string; status: string }> {
  return { orderId, status: 'shipped' };
}
