import { describe, expect, it } from 'vitest';
import { backHitsText, bakeRequest, mixerSamplers } from '../src/lib/bake_form';
import bakeRequestSchema from '../../schema/bake_request.schema.json';

const form = { sampler: 'pcg', spp: '16', bounces: '2', texel: '', mixers: '', source: 'default' };

describe('bakeRequest', () => {
  it('leaves two_sided out unless the box is ticked (the daemon default stays false)', () => {
    expect(bakeRequest(form, null)).not.toHaveProperty('two_sided');
    expect(bakeRequest({ ...form, twoSided: false }, null)).not.toHaveProperty('two_sided');
    expect(bakeRequest({ ...form, twoSided: true }, null).two_sided).toBe(true);
  });

  it('sends mixers only with the samplers the schema says take them, and as given when it does not say', () => {
    const run = { ...form, source: 'run', mixers: ' r0123456789ab ' };
    expect(bakeRequest({ ...run, sampler: 'mixforge-cmj' }, ['mixforge-cmj']).mixers).toEqual({ run: 'r0123456789ab' });
    expect(bakeRequest({ ...run, sampler: 'pcg' }, ['mixforge-cmj'])).not.toHaveProperty('mixers');
    expect(bakeRequest({ ...run, sampler: 'pcg' }, null).mixers).toEqual({ run: 'r0123456789ab' });
    const ids = { ...form, sampler: 'mixforge-cmj', source: 'functions', mixers: '0123456789abcdef, fedcba9876543210' };
    expect(bakeRequest(ids, ['mixforge-cmj']).mixers).toEqual({
      function_ids: ['0123456789abcdef', 'fedcba9876543210'],
    });
    expect(bakeRequest({ ...ids, source: 'default' }, ['mixforge-cmj'])).not.toHaveProperty('mixers');
  });
});

describe('mixerSamplers', () => {
  it("reads the samplers that take mixers from the API's bake_request schema", () => {
    expect(mixerSamplers({ components: { schemas: { bake_request: bakeRequestSchema } } })).toEqual(['mixforge-cmj']);
  });
  it('is null where the document does not say', () => {
    expect(mixerSamplers(null)).toBeNull();
    expect(mixerSamplers({ components: { schemas: {} } })).toBeNull();
    expect(
      mixerSamplers({ components: { schemas: { bake_request: { properties: { mixers: { 'x-samplers': 3 } } } } } }),
    ).toBeNull();
  });
});

describe('backHitsText', () => {
  it('names the rays that read black on one-sided faces', () => {
    expect(
      backHitsText({ two_sided_triangles: 0, rays: 1200, triangles: 3, one_sided_rays: 1200, one_sided_triangles: 3 }),
    ).toBe('1,200 rays on 3 triangles, 1,200 of them on 3 one-sided (black)');
    expect(
      backHitsText({ two_sided_triangles: 12, rays: 0, triangles: 0, one_sided_rays: 0, one_sided_triangles: 0 }),
    ).toBe('no rays; 12 two-sided triangles');
  });
});
