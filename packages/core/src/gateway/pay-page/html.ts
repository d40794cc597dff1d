const entities: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML element content and for double- or single-quoted attribute values: `&`, `<`, `>`,
 * `"` and `'` become entities, so merchant text is always shown as text and never parsed as markup.
 * Not for unquoted attributes, URLs in `href` (check the scheme first) or script and style content.
 *
 * @param text - Untrusted text.
 * @returns The escaped text.
 * @example
 * ```ts
 * import { escapeHtml } from '@tollgate/core/gateway';
 * escapeHtml('<img src=x onerror="alert(1)">'); // '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => entities[character] ?? character);
}
