/**
 * `@tollgate/core/node`: Node-only helpers (native Ed25519 signing, zlib decompression with caps, the
 * Express/node:http adapter). Everything else in core is platform-neutral.
 *
 * @packageDocumentation
 */
export * from '../crypto/node-ed25519-signer';
export * from '../http/node-decompress';
export * from '../http/node-express-adapter';
export * from './http-server';
export * from './logging';
export * from './database';
export * from './logging-options';
export * from './service';
export * from './node-notify-transport';
export * from './node-fetch';
export * from './node-license-crypto';
export * from './node-license-network';
export * from './trust-change-listener';
export * from './native-secp256k1';
