/**
 * `@tollgate/core/node`: Node-only helpers (native Ed25519 signing, zlib decompression with caps, the
 * Express/node:http adapter). Everything else in core is platform-neutral.
 *
 * @packageDocumentation
 */
export * from '../crypto/ed25519-signer.node';
export * from '../http/decompress.node';
export * from '../http/express-adapter.node';
export * from './http-server';
export * from './logging';
