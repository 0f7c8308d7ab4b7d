import { isPublicAddress, refuseEndpointUrl } from './address-policy';

const resolvingTo = (addresses: string[]) => async () => addresses;

describe('isPublicAddress', () => {
  it.each(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:8.8.8.8'])('when %s, then it is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '2002:7f00:1::',
    'not an address',
  ])('when %s, then it is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('refuseEndpointUrl', () => {
  it('when an https URL resolves only to public addresses, then it is accepted', async () => {
    expect(await refuseEndpointUrl('https://hooks.example.com/in?x=1', false, resolvingTo(['93.184.215.14']))).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/in', 'url must start with https://'],
    ['ftp://hooks.example.com/in', 'url must start with https://'],
    ['hooks.example.com', 'url must be an absolute URL'],
    ['https://user:pw@hooks.example.com/', 'url must not contain a user name or password'],
    ['https://127.0.0.1/in', 'loopback, private'],
    ['https://[::1]/in', 'loopback, private'],
    ['https://[::ffff:7f00:1]/in', 'loopback, private'],
    ['https://[fd00::1]/in', 'loopback, private'],
    ['https://169.254.169.254/latest', 'loopback, private'],
  ])('when %s, then it is refused naming url', async (url, message) => {
    expect(await refuseEndpointUrl(url, false, resolvingTo(['93.184.215.14']))).toContain(message);
  });

  it('when a name resolves to a private address among public ones, then it is refused', async () => {
    expect(await refuseEndpointUrl('https://hooks.example.com/', false, resolvingTo(['93.184.215.14', '10.0.0.7']))).toBe(
      "url's host name hooks.example.com resolves to a loopback, private, link-local or unique-local address (10.0.0.7).",
    );
  });

  it('when a name does not resolve, then it is refused', async () => {
    const failing = async () => Promise.reject(new Error('ENOTFOUND'));
    expect(await refuseEndpointUrl('https://nowhere.invalid/', false, failing)).toContain('does not resolve');
  });

  it('when WEBHOOK_ALLOW_PRIVATE is on, then http and private addresses are accepted', async () => {
    expect(await refuseEndpointUrl('http://127.0.0.1:9000/in', true)).toBeNull();
    expect(await refuseEndpointUrl('ftp://127.0.0.1/in', true)).toContain('https://');
  });
});
