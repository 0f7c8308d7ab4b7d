import { petsAddressOf } from './pets-address';

describe("npm start's pets-service address", () => {
  it('when nothing is set, then the gateway calls the pets-service default address', () => {
    expect(petsAddressOf({})).toEqual({ petsUrl: 'http://127.0.0.1:8082', healthUrl: 'http://127.0.0.1:8082/healthz' });
  });

  it('when PETS_PORT or PETS_HOST is set, then PETS_URL follows them', () => {
    expect(petsAddressOf({ PETS_PORT: '18182' }).petsUrl).toBe('http://127.0.0.1:18182');
    expect(petsAddressOf({ PETS_HOST: 'pets.internal', PETS_PORT: '9000' }).petsUrl).toBe('http://pets.internal:9000');
    expect(petsAddressOf({ PETS_HOST: '::1', PETS_PORT: '9000' }).petsUrl).toBe('http://[::1]:9000');
  });

  it('when the pets-service listens on a wildcard address, then it is reached on loopback', () => {
    expect(petsAddressOf({ PETS_HOST: '0.0.0.0', PETS_PORT: '9000' })).toEqual({ petsUrl: 'http://127.0.0.1:9000', healthUrl: 'http://127.0.0.1:9000/healthz' });
    expect(petsAddressOf({ PETS_HOST: '::' }).petsUrl).toBe('http://[::1]:8082');
  });

  it('when PETS_URL is set, then it wins, and the health check still goes to the pets-service started here', () => {
    expect(petsAddressOf({ PETS_URL: 'http://10.0.0.5:8082,http://10.0.0.6:8082', PETS_PORT: '9000' })).toEqual({
      petsUrl: 'http://10.0.0.5:8082,http://10.0.0.6:8082',
      healthUrl: 'http://127.0.0.1:9000/healthz',
    });
  });
});
