/**
 * `@tollgate/core`: the framework-agnostic engine of Tollgate. Everything here runs in Node, browsers
 * and workers; Node-only helpers live under `@tollgate/core/node`, drivers under `/pglite` and `/pg`,
 * and conformance suites under `/testing`.
 *
 * @packageDocumentation
 */
export * from './errors';
export * from './time';
export * from './cbor';
export * from './json';
export * from './crypto';
export * from './http';
export * from './storage';
export * from './config';
export * from './chain';
export * from './x402';
export * from './license';
export * from './gateway';
