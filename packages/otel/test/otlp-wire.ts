/**
 * Just enough of the protobuf wire format to read OTLP export requests in tests: spans and metric
 * points, with the same shapes the JSON encoding gives, so one assertion checks both protocols.
 */

interface Field {
  no: number;
  /** varint and fixed values as bigint; length-delimited ones as bytes. */
  value: bigint | Buffer;
}

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[at++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [result, at];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buf, at);
      out.push({ no, value });
      at = after;
    } else if (wire === 1) {
      out.push({ no, value: buf.readBigUInt64LE(at) });
      at += 8;
    } else if (wire === 5) {
      out.push({ no, value: BigInt(buf.readUInt32LE(at)) });
      at += 4;
    } else if (wire === 2) {
      const [length, start] = readVarint(buf, at);
      out.push({ no, value: buf.subarray(start, start + Number(length)) });
      at = start + Number(length);
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return out;
}

const all = (buf: Buffer, no: number): Buffer[] =>
  fields(buf)
    .filter((f) => f.no === no)
    .map((f) => f.value as Buffer);
const one = (buf: Buffer, no: number): Buffer | bigint | undefined => fields(buf).find((f) => f.no === no)?.value;
const text = (buf: Buffer, no: number): string => ((one(buf, no) as Buffer | undefined) ?? Buffer.alloc(0)).toString('utf8');
const hex = (buf: Buffer, no: number): string => ((one(buf, no) as Buffer | undefined) ?? Buffer.alloc(0)).toString('hex');

export type AttributeValue = string | number | boolean;

export interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, AttributeValue>;
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
  scope: string;
}

export interface OtlpPoint {
  attributes: Record<string, AttributeValue>;
  /** Histograms: how many values. */
  count?: number;
  /** Sums and gauges. */
  value?: number;
}

export interface OtlpMetric {
  name: string;
  unit: string;
  type: 'histogram' | 'sum' | 'gauge' | 'other';
  points: OtlpPoint[];
  resource: Record<string, AttributeValue>;
}

/** AnyValue: string 1, bool 2, int 3, double 4. */
function anyValue(buf: Buffer): AttributeValue {
  const f = fields(buf)[0];
  if (!f) return '';
  if (f.no === 1) return (f.value as Buffer).toString('utf8');
  if (f.no === 2) return f.value === 1n;
  if (f.no === 3) return Number(BigInt.asIntN(64, f.value as bigint));
  if (f.no === 4) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(f.value as bigint);
    return b.readDoubleLE(0);
  }
  return `<field ${f.no}>`;
}

function keyValues(list: Buffer[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list) {
    const value = one(kv, 2);
    out[text(kv, 1)] = value instanceof Buffer ? anyValue(value) : '';
  }
  return out;
}

function resourceOf(buf: Buffer): Record<string, AttributeValue> {
  const resource = one(buf, 1);
  return resource instanceof Buffer ? keyValues(all(resource, 1)) : {};
}

/** Spans of an ExportTraceServiceRequest in protobuf. */
export function spansFromProtobuf(body: Buffer): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const rs of all(body, 1)) {
    const resource = resourceOf(rs);
    for (const ss of all(rs, 2)) {
      const scopeBuf = one(ss, 1);
      const scope = scopeBuf instanceof Buffer ? text(scopeBuf, 1) : '';
      for (const span of all(ss, 2)) {
        const status = one(span, 15);
        spans.push({
          name: text(span, 5),
          kind: Number((one(span, 6) as bigint | undefined) ?? 0n),
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          attributes: keyValues(all(span, 9)),
          status: status instanceof Buffer ? { code: Number((one(status, 3) as bigint | undefined) ?? 0n), message: text(status, 2) } : { code: 0, message: '' },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}

/** Metrics of an ExportMetricsServiceRequest in protobuf. */
export function metricsFromProtobuf(body: Buffer): OtlpMetric[] {
  const out: OtlpMetric[] = [];
  for (const rm of all(body, 1)) {
    const resource = resourceOf(rm);
    for (const sm of all(rm, 2)) {
      for (const metric of all(sm, 2)) {
        const histogram = one(metric, 9);
        const sum = one(metric, 7);
        const gauge = one(metric, 5);
        let type: OtlpMetric['type'] = 'other';
        const points: OtlpPoint[] = [];
        if (histogram instanceof Buffer) {
          type = 'histogram';
          for (const p of all(histogram, 1)) points.push({ attributes: keyValues(all(p, 9)), count: Number((one(p, 4) as bigint | undefined) ?? 0n) });
        } else if (sum instanceof Buffer || gauge instanceof Buffer) {
          type = sum instanceof Buffer ? 'sum' : 'gauge';
          for (const p of all((sum ?? gauge) as Buffer, 1)) {
            const asInt = one(p, 6);
            const asDouble = one(p, 4);
            let value = 0;
            if (typeof asInt === 'bigint') value = Number(BigInt.asIntN(64, asInt));
            else if (typeof asDouble === 'bigint') {
              const b = Buffer.alloc(8);
              b.writeBigUInt64LE(asDouble);
              value = b.readDoubleLE(0);
            }
            points.push({ attributes: keyValues(all(p, 7)), value });
          }
        }
        out.push({ name: text(metric, 1), unit: text(metric, 3), type, points, resource });
      }
    }
  }
  return out;
}

// The JSON encoding (http/json): the same messages, camelCase, ids in hex, 64-bit integers maybe as strings.

interface JsonKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value = {} } of list ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? ''));
  }
  return out;
}

interface JsonSpan {
  name: string;
  kind?: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: JsonKeyValue[];
  status?: { code?: number; message?: string };
}

/** Spans of an ExportTraceServiceRequest in JSON. */
export function spansFromJson(body: Buffer): OtlpSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: JsonSpan[] }[] }[];
  };
  const spans: OtlpSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        spans.push({
          name: span.name,
          kind: span.kind ?? 0,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          attributes: jsonAttributes(span.attributes),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return spans;
}

interface JsonPoint {
  attributes?: JsonKeyValue[];
  count?: number | string;
  asInt?: number | string;
  asDouble?: number;
}

/** Metrics of an ExportMetricsServiceRequest in JSON. */
export function metricsFromJson(body: Buffer): OtlpMetric[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceMetrics?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeMetrics?: { metrics?: { name: string; unit?: string; histogram?: { dataPoints?: JsonPoint[] }; sum?: { dataPoints?: JsonPoint[] }; gauge?: { dataPoints?: JsonPoint[] } }[] }[];
    }[];
  };
  const out: OtlpMetric[] = [];
  for (const rm of request.resourceMetrics ?? []) {
    const resource = jsonAttributes(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const metric of sm.metrics ?? []) {
        if (metric.histogram) {
          const points = (metric.histogram.dataPoints ?? []).map((p) => ({ attributes: jsonAttributes(p.attributes), count: Number(p.count ?? 0) }));
          out.push({ name: metric.name, unit: metric.unit ?? '', type: 'histogram', points, resource });
        } else if (metric.sum || metric.gauge) {
          const points = ((metric.sum ?? metric.gauge)!.dataPoints ?? []).map((p) => ({ attributes: jsonAttributes(p.attributes), value: Number(p.asInt ?? p.asDouble ?? 0) }));
          out.push({ name: metric.name, unit: metric.unit ?? '', type: metric.sum ? 'sum' : 'gauge', points, resource });
        } else {
          out.push({ name: metric.name, unit: metric.unit ?? '', type: 'other', points: [], resource });
        }
      }
    }
  }
  return out;
}
