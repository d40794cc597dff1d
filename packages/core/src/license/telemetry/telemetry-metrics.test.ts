import { describe, expect, it } from 'vitest';
import { renderPrometheusText } from './telemetry-metrics';

describe('renderPrometheusText', () => {
  it('writes HELP and TYPE before the samples, labels in order, a final newline', () => {
    const text = renderPrometheusText([
      { name: 'a_total', help: 'Some\\thing\nnew.', type: 'counter', samples: [{ labels: { vendor_id: 'v', counter: 't1.no_consent' }, value: 3 }] },
      { name: 'b', help: 'B.', type: 'gauge', samples: [{ labels: {}, value: 0 }, { labels: { x: 'q"u\\o\nte' }, value: Number.NaN }] },
      { name: 'empty', help: 'No samples.', type: 'gauge', samples: [] },
    ]);
    expect(text).toBe(
      [
        '# HELP a_total Some\\\\thing\\nnew.',
        '# TYPE a_total counter',
        'a_total{vendor_id="v",counter="t1.no_consent"} 3',
        '# HELP b B.',
        '# TYPE b gauge',
        'b 0',
        'b{x="q\\"u\\\\o\\nte"} NaN',
        '# HELP empty No samples.',
        '# TYPE empty gauge',
        '',
      ].join('\n'),
    );
    expect(renderPrometheusText([])).toBe('');
  });

  it('refuses names the format cannot carry', () => {
    expect(() => renderPrometheusText([{ name: 't1.no_consent', help: '', type: 'counter', samples: [] }])).toThrow(TypeError);
    expect(() => renderPrometheusText([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': 'x' }, value: 1 }] }])).toThrow(TypeError);
    expect(() => renderPrometheusText([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { __reserved: 'x' }, value: 1 }] }])).toThrow(TypeError);
  });
});
