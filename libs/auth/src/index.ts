export { AuthModule } from './auth.module.js';
export {
  AuthClientFields,
  EnvironmentSchema,
  ExchangeTokenFields,
  RETAIL_ACCOUNT_NAME,
  RetailSigningFields,
  environmentsConfigCheck,
  type AuthConfigView,
  type EnvironmentConfig,
  type ExchangeTokenSettings,
  type RetailAccountConfig,
} from './config/auth.config.js';
export { ApiKeyVerifier, generateApiKey, hashApiKey, type KeyedIdentity } from './client-keys/api-key.js';
export { CredentialTargetError, EnvironmentBinding } from './environment/environment-binding.js';
export { ExchangeTokenProvider, type ExchangeTokenStatus } from './exchange-token/exchange-token.provider.js';
export type { TokenFailureReason } from './exchange-token/token-endpoint.js';
export type { Ed25519PrivateKey, RsaPrivateKey } from './keys/key-files.js';
export { KeyLoadError, type KeyFileProblem } from './keys/key-load.error.js';
export { KeyStore, type ExchangeCredential, type KeySet, type RetailCredential } from './keys/key-store.service.js';
export { RetailSigner, type RetailAuthHeaders } from './retail-signing/retail-signer.service.js';
