// An OTLP/HTTP trace receiver in the test's own process, speaking the protocol for real: it takes
// `POST /v1/traces` in http/json (application/json) and in http/protobuf (application/x-protobuf,
// decoded here from the wire format of opentelemetry-proto's trace.proto), answers 200 with an
// empty ExportTraceServiceResponse, and keeps every span with its resource, and every raw body
// (so that a test can look for a secret in exactly what was sent).
import { createServer, type Server } from 'node:http';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** e.g. http://127.0.0.1:4318 (OTEL_EXPORTER_OTLP_ENDPOINT) */
  url: string;
  spans: ReceivedSpan[];
  /** Every body received, as text (protobuf's strings are UTF-8 bytes in it too). */
  bodies: string[];
  /** Content types of the exports received. */
  contentTypes: string[];
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): Promise<void>;
}

// ---- http/json (ids are hex, 64-bit integers may be strings) ----

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: { values?: JsonKeyValue[] };
  bytesValue?: string;
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}

function jsonValue(value: JsonAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.kvlistValue) return jsonAttributes(value.kvlistValue.values);
  return value.bytesValue;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, jsonValue(entry.value)]));
}

// biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON document
function spansOfJson(document: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of document.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind ?? 0,
          attributes: jsonAttributes(span.attributes),
          events: (span.events ?? []).map((event: { name: string; attributes?: JsonKeyValue[] }) => ({
            name: event.name,
            attributes: jsonAttributes(event.attributes),
          })),
          resource,
          scope: scopeSpans.scope?.name ?? '',
        });
      }
    }
  }
  return spans;
}

// ---- http/protobuf: the wire format (varint, 64-bit, length-delimited, 32-bit) ----

type Field = { number: number; wire: number; value: bigint | Buffer };

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const number = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ number, wire, value: varint() });
    else if (wire === 1) {
      out.push({ number, wire, value: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, wire, value: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ number, wire, value: buffer.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const text = (field: Field) => (field.value as Buffer).toString('utf8');
const hex = (field: Field) => (field.value as Buffer).toString('hex');

function protoValue(buffer: Buffer): unknown {
  for (const field of fields(buffer)) {
    if (field.number === 1) return text(field);
    if (field.number === 2) return field.value === 1n;
    if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
    if (field.number === 4) return (field.value as Buffer).readDoubleLE(0);
    if (field.number === 5)
      return fields(field.value as Buffer)
        .filter((each) => each.number === 1)
        .map((each) => protoValue(each.value as Buffer));
    if (field.number === 6)
      return protoAttributes(fields(field.value as Buffer).filter((each) => each.number === 1));
    if (field.number === 7) return (field.value as Buffer).toString('base64');
  }
  return undefined;
}

/** KeyValue messages: 1 key, 2 value (AnyValue). */
function protoAttributes(list: Field[]): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const entry of list) {
    let key = '';
    let value: unknown;
    for (const field of fields(entry.value as Buffer)) {
      if (field.number === 1) key = text(field);
      if (field.number === 2) value = protoValue(field.value as Buffer);
    }
    attributes[key] = value;
  }
  return attributes;
}

function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  // ExportTraceServiceRequest: 1 resource_spans
  for (const resourceSpans of fields(body).filter((field) => field.number === 1)) {
    let resource: Record<string, unknown> = {};
    const scopes: Field[] = [];
    for (const field of fields(resourceSpans.value as Buffer)) {
      // ResourceSpans: 1 resource (Resource: 1 attributes), 2 scope_spans
      if (field.number === 1)
        resource = protoAttributes(fields(field.value as Buffer).filter((f) => f.number === 1));
      if (field.number === 2) scopes.push(field);
    }
    for (const scopeSpans of scopes) {
      let scope = '';
      for (const field of fields(scopeSpans.value as Buffer)) {
        // ScopeSpans: 1 scope (InstrumentationScope: 1 name), 2 spans
        if (field.number === 1) {
          const name = fields(field.value as Buffer).find((f) => f.number === 1);
          scope = name ? text(name) : '';
        }
        if (field.number !== 2) continue;
        // Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes, 11 events
        const span: ReceivedSpan = {
          traceId: '',
          spanId: '',
          parentSpanId: '',
          name: '',
          kind: 0,
          attributes: {},
          events: [],
          resource,
          scope,
        };
        const attributeFields: Field[] = [];
        for (const part of fields(field.value as Buffer)) {
          if (part.number === 1) span.traceId = hex(part);
          else if (part.number === 2) span.spanId = hex(part);
          else if (part.number === 4) span.parentSpanId = hex(part);
          else if (part.number === 5) span.name = text(part);
          else if (part.number === 6) span.kind = Number(part.value);
          else if (part.number === 9) attributeFields.push(part);
          else if (part.number === 11) {
            // Event: 2 name, 3 attributes
            const eventFields = fields(part.value as Buffer);
            const name = eventFields.find((f) => f.number === 2);
            span.events.push({
              name: name ? text(name) : '',
              attributes: protoAttributes(eventFields.filter((f) => f.number === 3)),
            });
          }
        }
        span.attributes = protoAttributes(attributeFields);
        spans.push(span);
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(request.headers['content-type'] ?? '');
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      try {
        contentTypes.push(type);
        bodies.push(body.toString('utf8'));
        if (type.startsWith('application/json')) {
          spans.push(...spansOfJson(JSON.parse(body.toString('utf8'))));
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else {
          spans.push(...spansOfProtobuf(body));
          response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        }
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    async waitFor(predicate, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) {
          throw new Error(`${what}: not received in time; spans: ${spans.map((s) => s.name).join(', ')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
