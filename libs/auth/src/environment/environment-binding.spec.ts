import { type AuthTestConfigInput, AuthTestConfigSchema } from '../testing/auth.fixtures.js';
import { CredentialTargetError, EnvironmentBinding } from './environment-binding.js';

const production: AuthTestConfigInput = {
  environment: 'production',
  environments: {
    development: {
      authUrl: 'http://127.0.0.1:4001',
      exchangeUrl: 'http://127.0.0.1:4002',
      grpcTarget: '127.0.0.1:4003',
      retailUrl: 'http://127.0.0.1:4004',
    },
    production: {
      authUrl: 'https://auth.example.com/',
      exchangeUrl: 'https://api.example.com',
      grpcTarget: 'grpc.example.com:443',
      retailUrl: 'https://retail.example.com',
    },
  },
};

describe(EnvironmentBinding.name, () => {
  const sut = new EnvironmentBinding(AuthTestConfigSchema.parse(production));

  it('binds to the running environment only', () => {
    expect(sut.name).toBe('production');
    expect(sut.tokenUrl).toBe('https://auth.example.com/oauth/token');
  });

  it.each([
    'https://api.example.com/v1/trading/orders',
    'https://api.example.com:443/v1/positions',
    'https://API.example.com/v1/positions',
    'https://api.example.com',
    'grpc.example.com:443',
    'https://grpc.example.com',
  ])('lets an exchange token go to %s', (target) => {
    expect(() => sut.assertExchangeTarget(target)).not.toThrow();
  });

  it.each([
    'http://api.example.com/v1/trading/orders',
    'https://api.example.com.evil.test/v1',
    'https://api.example.com:8443/v1',
    'https://user:pw@api.example.com/v1',
    'http://127.0.0.1:4002/v1/trading/orders',
    'grpc.example.com:444',
    'not a url',
  ])('keeps an exchange token from %s', (target) => {
    expect(() => sut.assertExchangeTarget(target)).toThrow(CredentialTargetError);
  });

  it.each([
    ['https://retail.example.com/v1/orders', 26],
    ['wss://retail.example.com/v1/ws/markets', 24],
    ['https://retail.example.com:443/v1/orders', 30],
    ['https://retail.example.com?x=1', 26],
  ])('lets a retail signature go to %s and finds where its path starts', (target, pathStart) => {
    expect(sut.assertRetailTarget(target)).toBe(pathStart);
  });

  it.each([
    'http://retail.example.com/v1/orders',
    'ws://retail.example.com/v1/ws/private',
    'https://retail.example.com:444/v1/orders',
    'https://api.example.com/v1/orders',
  ])('keeps a retail signature from %s, saying where without the path', (target) => {
    expect(() => sut.assertRetailTarget(target)).toThrow(
      new CredentialTargetError('production retail signature', target),
    );
    expect(() => sut.assertRetailTarget(target)).toThrow(
      /^Refusing to attach the production retail signature to a request for \w+:\/\/[^/]+\.$/,
    );
  });
});
