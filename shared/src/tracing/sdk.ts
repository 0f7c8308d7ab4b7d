/**
 * The OpenTelemetry SDK, started by `start.ts` only when an OTLP endpoint is set: the only module
 * that loads OpenTelemetry at run time. Pieces rather than @opentelemetry/sdk-node (not installed:
 * it would bring every exporter, the logs and metrics SDKs; docs/adr/0030-tracing-sdk-pieces.md):
 * a NodeTracerProvider (the sampler from OTEL_TRACES_SAMPLER and _ARG, the batch from OTEL_BSP_*),
 * the OTLP/HTTP exporter of the chosen protocol (it reads OTEL_EXPORTER_OTLP_* itself), the
 * resource from OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, W3C trace context, and the
 * instrumentations of the modules on the request path: http, express, ioredis, pg.
 */
import type { IncomingMessage } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { RedactingSpanProcessor } from './redacting-processor';
import { installTracing } from './runtime';
import type { OtlpProtocol, TracingSettings } from './settings';

const SERVER_SPAN = Symbol('animal-store.server-span');
const ROUTE = Symbol('animal-store.route');
interface TracedRequest extends IncomingMessage {
  [SERVER_SPAN]?: Span;
  [ROUTE]?: string;
}

/** Probes and scrapes, asked every few seconds: a trace each would bury the requests. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function startTracing({ protocol, defaultServiceName }: TracingSettings): void {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    // Redaction first: a span is cleaned before the batch takes it.
    spanProcessors: [new RedactingSpanProcessor(), new BatchSpanProcessor(exporterFor(protocol))],
  });
  // The AsyncLocalStorage context manager and the W3C traceparent/tracestate (and baggage) propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has(pathOf(req.url)),
        requestHook: (span, request) => {
          // The server span, kept on the request: the gateway's stages put the caller and the decision on it.
          if (!('getHeader' in request)) (request as TracedRequest)[SERVER_SPAN] = span;
        },
        applyCustomAttributesOnSpan: (span, request) => {
          const route = (request as TracedRequest)[ROUTE];
          if (route === undefined) return;
          span.setAttribute(ATTR_HTTP_ROUTE, route);
          span.updateName(`${request.method ?? 'GET'} ${route}`);
        },
      }),
      // Spans for route handlers only: a span per middleware (a dozen per request) would say less
      // than the spans of our own stages (rate-limit) and cost more.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // The command name only: arguments hold keys such as a portal session's id.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      // The statement text with its placeholders, never the values (enhancedDatabaseReporting stays off).
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });

  const tracer = provider.getTracer('animal-store');
  const endSpan = (span: Span, error?: unknown) => {
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  };
  installTracing({
    serverSpanOf: (req) => (req as TracedRequest)[SERVER_SPAN],
    setRoute: (req, route) => {
      (req as TracedRequest)[ROUTE] = route;
    },
    inSpan<T>(name: string, attributes: Attributes, work: () => T): T {
      const parent = context.active();
      if (trace.getSpan(parent) === undefined) return work();
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
      let result: T;
      try {
        result = context.with(trace.setSpan(parent, span), work);
      } catch (error) {
        endSpan(span, error);
        throw error;
      }
      endSpan(span);
      return result;
    },
    inSpanAsync<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
      const parent = context.active();
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
      return context.with(trace.setSpan(parent, span), work, undefined, span).then(
        (value) => {
          endSpan(span);
          return value;
        },
        (error: unknown) => {
          endSpan(span, error);
          throw error;
        },
      );
    },
    logFields: () => {
      const span = trace.getSpan(context.active());
      // pino merges the line's fields into what this returns: a new object each time.
      if (span === undefined) return {};
      const { traceId, spanId, traceFlags } = span.spanContext();
      return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` };
    },
    shutdown: () => provider.shutdown(),
  });
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Loads only the exporter of the chosen protocol (each brings its own serialiser). */
function exporterFor(protocol: OtlpProtocol): SpanExporter {
  if (protocol === 'http/json') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- only the chosen exporter is loaded
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only the chosen exporter is loaded
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}
