import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OTLP/HTTP trace receiver on a free port of 127.0.0.1: the tests point the services at it
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` so that what
 * arrives can be read) and look at the spans; the bench points them at one that discards.
 * It answers every export 200, as a collector that accepted it.
 */

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  /** The W3C `tracestate` the span carried (empty: none). */
  traceState: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; traceState?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

function valueOf(value: OtlpValue): AttributeValue {
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Exports received (the bench counts them: the receiver must have been used). */
  exports = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `keep: false` reads and discards every export (the bench's receiver). */
  static async start({ keep = true }: { keep?: boolean } = {}): Promise<OtlpReceiver> {
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => keep && chunks.push(chunk));
      req.on('end', () => {
        receiver.exports += 1;
        if (keep && req.url === '/v1/traces' && (req.headers['content-type'] ?? '').startsWith('application/json')) {
          receiver.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Requests are handled only once listening, so `receiver` is set by then.
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private collect(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            traceState: span.traceState ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
