import { describe, expect, it } from 'vitest';
import { backHitsText, bakeRequest } from '../src/lib/bake_form';

const form = { sampler: 'pcg', spp: '16', bounces: '2', texel: '', mixers: '', source: 'default' };

describe('bakeRequest', () => {
  it('leaves two_sided out unless the box is ticked (the daemon default stays false)', () => {
    expect(bakeRequest(form)).not.toHaveProperty('two_sided');
    expect(bakeRequest({ ...form, twoSided: false })).not.toHaveProperty('two_sided');
    expect(bakeRequest({ ...form, twoSided: true }).two_sided).toBe(true);
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
