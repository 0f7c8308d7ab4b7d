import { downstreamResponseHeaders, upstreamRequestHeaders } from './hop-by-hop';

describe('hop-by-hop headers', () => {
  it('when a client request is forwarded, then connection-level, forwarding and credential headers are dropped, end-to-end ones kept', () => {
    const kept = upstreamRequestHeaders({
      connection: 'Keep-Alive, X-Secret-Hop',
      'x-secret-hop': '1',
      'keep-alive': 'timeout=9',
      te: 'trailers',
      upgrade: 'websocket',
      'proxy-authorization': 'Basic x',
      'proxy-connection': 'keep-alive',
      forwarded: 'for=1.2.3.4',
      'x-real-ip': '1.2.3.4',
      'x-forwarded-for': '1.2.3.4',
      'x-forwarded-host': 'evil.example',
      host: 'evil.example',
      authorization: 'Bearer ask_live_x',
      cookie: 'session=1',
      'content-length': '10',
      accept: 'application/json',
      'content-type': 'application/json',
      'x-request-id': 'r1',
    });
    expect(kept).toEqual({ accept: 'application/json', 'content-type': 'application/json', 'x-request-id': 'r1' });
  });

  it('when an upstream answer is relayed, then hop-by-hop and upstream identity headers are dropped', () => {
    const kept = downstreamResponseHeaders({
      connection: 'close, x-hop',
      'x-hop': 'y',
      'keep-alive': 'timeout=65',
      'transfer-encoding': 'chunked',
      server: 'pets/1',
      'x-powered-by': 'Express',
      'set-cookie': ['a=b'],
      'content-type': 'application/json',
      'content-length': '2',
      link: '</v1/pets?cursor=x>; rel="next"',
    });
    expect(kept).toEqual({ 'content-type': 'application/json', 'content-length': '2', link: '</v1/pets?cursor=x>; rel="next"' });
  });
});
