export * from './errors';
export * from './request-id';
export * from './logger';
export * from './internal-token';
export * from './pets';
export * from './openapi';
export * from './validation';
export * from './env';
