import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseGatewayInput } from '../gateway/routes/parse-input';
import { findInvisibleFormatting, utf8TextSchema } from './schema-fields';

const label = utf8TextSchema(120);
const description = utf8TextSchema(512, { multiline: true });
const accepts = (schema: typeof label, text: string) => v.safeParse(schema, text).success;

/** The code points the brief and docs/pending/pay-decisions.md name, one string each. */
const invisible = [
  ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e'],
  ...['\u2066', '\u2067', '\u2068', '\u2069'],
  ...['\u2028', '\u2029', '\u200e', '\u200f', '\u061c', '\ufeff'],
  ...['\u200b', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\u206a', '\u206f', '\ufff9', '\ufffa', '\ufffb', '\u180e'],
  '\u{e0041}',
  '\u{e0001}',
];

describe('utf8TextSchema: invisible formatting', () => {
  it.each(invisible)('refuses U+%s in labels and descriptions, wherever it stands', (character) => {
    for (const text of [`evil${character}exe.txt`, `${character}start`, `end${character}`]) {
      expect(accepts(label, text), JSON.stringify(text)).toBe(false);
      expect(accepts(description, text), JSON.stringify(text)).toBe(false);
    }
  });

  it('names the offending character and its position in the refusal', () => {
    expect(() => parseGatewayInput(v.object({ description }), { description: 'evil\u202eexe.txt' })).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: 'description: expected text without invisible formatting characters such as direction overrides (found U+202E at character 5).',
        details: expect.objectContaining({ field: 'description' }),
      }),
    );
    // Positions count code points, so an emoji before the character counts once.
    expect(findInvisibleFormatting('😀\u2066x')).toBe('U+2066 at character 2');
  });

  it('keeps the joiners and selectors that real text needs', () => {
    for (const text of ['Café \u{1f469}\u200d\u{1f4bb}', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645', '\u2764\ufe0f', 'Flag \u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} of Scotland', 'עברית and English', 'soft\u00adhyphen']) {
      expect(findInvisibleFormatting(text), text).toBeUndefined();
      expect(accepts(label, text), text).toBe(true);
    }
  });

  it('refuses tag characters outside an emoji tag sequence, even next to one', () => {
    expect(findInvisibleFormatting('\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}\u{e0041}')).toBe('U+E0041 at character 8');
    expect(findInvisibleFormatting('🏴\u{e0067}')).toBe('U+E0067 at character 2');
  });
});

describe('utf8TextSchema: control characters', () => {
  it('allows tab, LF and CRLF in descriptions only, and refuses a lone CR', () => {
    expect(accepts(description, 'line one\nline two\r\nline three\tend')).toBe(true);
    expect(accepts(description, 'over\rwrite')).toBe(false);
    expect(accepts(description, 'ends with CR\r')).toBe(false);
    for (const text of ['tab\there', 'line\nbreak', 'crlf\r\n']) expect(accepts(label, text), JSON.stringify(text)).toBe(false);
  });

  it('refuses C0, DEL and C1 controls and says which', () => {
    for (const code of [0x00, 0x07, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f]) {
      const text = `a${String.fromCharCode(code)}b`;
      expect(accepts(label, text), code.toString(16)).toBe(false);
      expect(accepts(description, text), code.toString(16)).toBe(false);
    }
    const issue = v.safeParse(description, 'ok\r\nthen\u0007').issues?.[0]?.message;
    expect(issue).toBe('text without control characters other than tab, LF and CRLF (found U+0007 at character 9)');
  });
});
