import { IncomingMessage, ServerResponse, createServer, request, type RequestListener } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import express from 'express';
import { appPrototypeClasses } from './app-prototypes';
import { createDrainableServer, type DrainableServer } from './http-server';
import { IN_FLIGHT_SLOT } from './in-flight';

const TIMEOUTS = { headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 };

/**
 * Serves `app` with the classes `appPrototypeClasses` gives (as the services do, through
 * `createDrainableServer`, or on a bare `node:http` server when `bare`), and records each request's and response's prototype before the
 * app sees them.
 */
async function serve(app: RequestListener, bare = false): Promise<{ server: DrainableServer; url: string; arrived: Array<{ req: object | null; res: object | null }> }> {
  const arrived: Array<{ req: object | null; res: object | null }> = [];
  const listener = Object.assign((req: IncomingMessage, res: ServerResponse) => {
    arrived.push({ req: Object.getPrototypeOf(req) as object | null, res: Object.getPrototypeOf(res) as object | null });
    app(req, res);
  }, app);
  if (!bare) {
    const server = createDrainableServer(listener, TIMEOUTS, { draining: false });
    await server.listen(0, '127.0.0.1');
    return { server, url: `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`, arrived };
  }
  const http = createServer(appPrototypeClasses(app), listener);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const server: DrainableServer = {
    server: http,
    listen: () => Promise.resolve(),
    drain: () => new Promise<void>((resolve) => http.close(() => resolve())),
    cut: () => http.closeAllConnections(),
  };
  return { server, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, arrived };
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, agent: false }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body, headers: answer.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('appPrototypeClasses', () => {
  it('when given an Express app, then its requests and responses are born with the app’s prototypes, are still IncomingMessage and ServerResponse, and the app answers as usual', async () => {
    const app = express();
    let seen: { req: boolean; res: boolean; instance: boolean; ip: string | undefined } | undefined;
    app.get('/hello/:name', (req, res) => {
      seen = { req: Object.getPrototypeOf(req) === app.request, res: Object.getPrototypeOf(res) === app.response, instance: req instanceof IncomingMessage && res instanceof ServerResponse, ip: req.ip };
      res.status(201).json({ hello: req.params.name, accept: req.get('x-test') });
    });
    const { server, url, arrived } = await serve(app, true);
    try {
      const answer = await get(`${url}/hello/rex`, { 'x-test': 'yes' });
      expect(answer).toMatchObject({ status: 201, body: '{"hello":"rex","accept":"yes"}' });
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      // Made with the app's prototypes, not given them by Express: its setPrototypeOf has nothing to change.
      expect(arrived).toEqual([{ req: app.request, res: app.response }]);
      expect(seen).toEqual({ req: true, res: true, instance: true, ip: '127.0.0.1' });
    } finally {
      await server.drain();
    }
  });

  it('when the app streams a body in and out, then Node’s own constructors have set both objects up in full', async () => {
    const app = express();
    app.use(express.text({ type: '*/*' }));
    app.post('/echo', (req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.write(String(req.body));
      res.end('!');
    });
    const { server, url } = await serve(app, true);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const outgoing = request(`${url}/echo`, { method: 'POST', agent: false, headers: { 'Content-Type': 'text/plain' } }, (answer) => {
          let text = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (text += chunk));
          answer.on('end', () => resolve(text));
        });
        outgoing.on('error', reject);
        outgoing.end('woof');
      });
      expect(body).toBe('woof!');
    } finally {
      await server.drain();
    }
  });

  it('when a request goes through the app’s routers, to a route and to an error handler, then Express adds no field to it or its response after birth', async () => {
    const ownFields = (value: object) => [...Object.getOwnPropertyNames(value), ...Object.getOwnPropertySymbols(value).map(String)].sort();
    const born: Array<{ req: string[]; res: string[] }> = [];
    const done: Array<{ req: string[]; res: string[] }> = [];
    const app = express();
    const v1 = express.Router();
    v1.use((req, _res, next) => {
      req.id = 'an id'; // request-id.ts
      next();
    });
    v1.get('/pets/:id', (req, res) => {
      done.push({ req: ownFields(req), res: ownFields(res) });
      res.json({ id: req.params.id });
    });
    v1.get('/refused', (_req, _res, next) => next(new Error('refused')));
    app.use('/v1', v1);
    app.use((_err: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
      done.push({ req: ownFields(req), res: ownFields(res) });
      res.status(429).end();
    });
    const listener = Object.assign((req: IncomingMessage, res: ServerResponse) => {
      born.push({ req: ownFields(req), res: ownFields(res) });
      app(req, res);
    }, app);
    const http = createServer(appPrototypeClasses(app), listener);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      expect((await get(`${url}/v1/pets/7`)).status).toBe(200);
      expect((await get(`${url}/v1/refused`)).status).toBe(429);
      // The fields Express and its router add were all there from birth (V8 then never moves the
      // object to a new map in its runtime; AppRequest's comment): among them the router's own symbols.
      expect(born[0]!.req).toEqual(expect.arrayContaining(['Symbol(router.tracing.matchedRoute)', 'Symbol(router.tracing.publishedErrors)', 'baseUrl', 'next', 'params', 'res']));
      expect(done).toEqual(born);
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('when the app’s classes make requests and responses, then both are born with fast properties (never a dictionary), with Node’s own fields declared first', async () => {
    // V8's own check, from its natives syntax, allowed at run time for this worker only.
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('value', 'return %HasFastProperties(value)') as (value: object) => boolean;
    const app = express();
    const classes = appPrototypeClasses(app);
    const born: Array<{ req: boolean; res: boolean }> = [];
    const nodeFields: Array<{ req: string[]; res: string[] }> = [];
    const plain = createServer((req, res) => {
      nodeFields.push({ req: Object.keys(req), res: Object.keys(res) });
      res.end();
    });
    const listener = Object.assign((req: IncomingMessage, res: ServerResponse) => {
      born.push({ req: hasFastProperties(req), res: hasFastProperties(res) });
      app(req, res);
    }, app);
    app.get('/', (_req, res) => res.end());
    const withClasses = createServer(classes, listener);
    await Promise.all([plain, withClasses].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
    try {
      for (let i = 0; i < 20; i++) await get(`http://127.0.0.1:${(withClasses.address() as AddressInfo).port}/`);
      await get(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
      expect(born).toEqual(Array.from({ length: 20 }, () => ({ req: true, res: true })));
      // Each of Node's fields the classes declare is one Node gives every request or response as a
      // plain data field, never an accessor of Express's or Node's prototypes (which the declaration would call).
      const declaredBefore = (constructor: unknown, call: string) => {
        const source = String(constructor);
        return [...source.slice(0, source.indexOf(call)).matchAll(/this\.(\w+) = undefined;/g)].map((match) => match[1]!);
      };
      const accessorsAmong = (names: string[], prototype: object) =>
        names.filter((name) => {
          for (let proto: object | null = prototype; proto; proto = Object.getPrototypeOf(proto) as object | null) {
            const descriptor = Object.getOwnPropertyDescriptor(proto, name);
            if (descriptor) return descriptor.get !== undefined || descriptor.set !== undefined;
          }
          return false;
        });
      for (const [declared, own, prototype] of [
        [declaredBefore(classes.IncomingMessage, 'IncomingMessage.call'), nodeFields[0]!.req, app.request],
        [declaredBefore(classes.ServerResponse, 'ServerResponse.call'), nodeFields[0]!.res, app.response],
      ] as const) {
        expect(declared.length).toBeGreaterThan(15);
        expect({ notNodes: declared.filter((name) => !own.includes(name)), accessors: accessorsAmong(declared, prototype) }).toEqual({ notNodes: [], accessors: [] });
      }
    } finally {
      await Promise.all([plain, withClasses].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  });

  it('when a response is made with the app’s classes, then it is born with its slot among the responses in flight, which the server gives it next (in-flight.ts)', () => {
    const { IncomingMessage: AppRequest, ServerResponse: AppResponse } = appPrototypeClasses(express());
    const res = new AppResponse!(new AppRequest!(new Socket()));
    expect(Object.getOwnPropertySymbols(res)).toContain(IN_FLIGHT_SLOT);
  });

  it('when the services serve an Express app, then its requests and responses are born with its prototypes, on every Node', async () => {
    const app = express();
    app.get('/', (req, res) => res.json({ app: Object.getPrototypeOf(req) === app.request }));
    const { server, url, arrived } = await serve(app);
    try {
      expect(await get(url)).toMatchObject({ status: 200, body: '{"app":true}' });
      expect(arrived).toEqual([{ req: app.request, res: app.response }]);
    } finally {
      await server.drain();
    }
  });

  it('when given a listener that is not an Express app, then it gives no classes and the server makes Node’s own objects', async () => {
    const plain: RequestListener = (_req, res) => res.end('plain');
    expect(appPrototypeClasses(plain)).toEqual({});
    // Something that only looks like an app, with prototypes of the wrong kinds, gets none either.
    expect(appPrototypeClasses(Object.assign(() => undefined, { request: {}, response: Object.create(IncomingMessage.prototype) as object }))).toEqual({});
    const { server, url, arrived } = await serve(plain);
    try {
      expect(await get(url)).toMatchObject({ status: 200, body: 'plain' });
      expect(arrived).toEqual([{ req: IncomingMessage.prototype, res: ServerResponse.prototype }]);
    } finally {
      await server.drain();
    }
  });
});
