/**
 * `@tollgate/client-sdk`: the desktop client of the license protocol. Works in Node and in browsers.
 *
 * @packageDocumentation
 */
export {};
