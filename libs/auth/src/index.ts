export { AuthModule } from './auth.module.js';
export { ApiKeyVerifier, generateApiKey, hashApiKey, type KeyedIdentity } from './client-keys/api-key.js';
