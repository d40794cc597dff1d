import { base64Encode } from '../../crypto/base64';
import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { payClientHelpersSource } from './client-helpers';
import { payClientMainSource } from './client-main';
import { payPageStyleSource } from './pay-style';

/** One static file of the pay page, named by its content hash. */
export interface PayPageAsset {
  /** `pay-<first 16 hex digits of its SHA-256>.<js|css>`: a new content is a new name, so it can be cached forever. */
  readonly fileName: string;
  /** Its route path, `/pay/assets/<fileName>`. */
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
  /** Subresource Integrity value, `sha256-<base64>`, that the page's tag carries. */
  readonly integrity: string;
}

/** The pay page's script and stylesheet. */
export interface PayPageAssets {
  readonly script: PayPageAsset;
  readonly style: PayPageAsset;
}

function asset(extension: 'js' | 'css', contentType: string, body: string): PayPageAsset {
  const digest = sha256(utf8Encode(body));
  const fileName = `pay-${hexEncode(digest).slice(0, 16)}.${extension}`;
  return { fileName, path: `/pay/assets/${fileName}`, contentType, body, integrity: `sha256-${base64Encode(digest)}` };
}

let built: PayPageAssets | undefined;

/**
 * The pay page's script (the helpers and the DOM flow in one strict-mode function scope, so nothing
 * leaks into `window`) and stylesheet, each with its content-hashed name and SRI integrity. Built once
 * per process: the sources are constants.
 *
 * @returns The two assets.
 * @example
 * ```ts
 * import { payPageAssets } from '@tollgate/core/gateway';
 * const { script } = payPageAssets();
 * console.log(script.path, script.integrity); // '/pay/assets/pay-1a2b….js', 'sha256-…'
 * ```
 */
export function payPageAssets(): PayPageAssets {
  built ??= {
    script: asset('js', 'text/javascript; charset=utf-8', `// Tollgate pay page\n(function () {\n'use strict';\n${payClientHelpersSource}\n${payClientMainSource}\n})();\n`),
    style: asset('css', 'text/css; charset=utf-8', payPageStyleSource),
  };
  return built;
}
