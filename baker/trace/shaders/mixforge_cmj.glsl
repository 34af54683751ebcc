// GLSL twin of baker/sampling/mixforge_cmj.cpp (and baker/sampling/hash_utils.hpp, baker/sampling/morton.hpp,
// baker/sampling/sampler.cpp's cmj_grid): sample s of a texel's mixforge-cmj set, stateless. Needs
// `uvec4 mixforge_mixers(uvec4)`, the GLSL that shader/ exports for the 4-lane family
// (#included before this file). Counter-based: every hash input is k ^ c or s ^ c, never a
// mixer's own output, so no loop can fall into a short cycle.

uint64_t mixforge_splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ul;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ul;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebul;
  return x ^ (x >> 31);
}

uint mixforge_texel_seed(uint64_t seed, uint x, uint y, uint pass) {
  return uint(mixforge_splitmix64(mixforge_splitmix64(seed ^ (uint64_t(pass) << 48)) ^
                                  ((uint64_t(y) << 24) | uint64_t(x))));
}

// 24 high bits as a float in [0, 1) (exact).
float mixforge_unit_float(uint h) { return float(h >> 8) * 5.9604644775390625e-8; }

// m: the largest divisor of count with m * m <= count; n = count / m.
uvec2 mixforge_cmj_grid(uint count) {
  uvec2 g = uvec2(1u, count);
  for (uint m = 1u; uint64_t(m) * uint64_t(m) <= uint64_t(count); ++m)
    if (count % m == 0u) g = uvec2(m, count / m);
  return g;
}

uint mixforge_compact_bits(uint v) {  // even bit positions -> 16 bits (inverse of spread_bits)
  v &= 0x55555555u;
  v = (v | (v >> 1)) & 0x33333333u;
  v = (v | (v >> 2)) & 0x0f0f0f0fu;
  v = (v | (v >> 4)) & 0x00ff00ffu;
  v = (v | (v >> 8)) & 0x0000ffffu;
  return v;
}

// The cell of sample s: the s-th cell of the m x n grid in Morton order (codes ascending,
// cells outside the grid skipped). Bounded: the loop ends at the last 32-bit code.
uvec2 mixforge_morton_cell(uint s, uvec2 grid) {
  uint rank = 0u;
  for (uint code = 0u; code != 0xffffffffu; ++code) {
    uvec2 cell = uvec2(mixforge_compact_bits(code), mixforge_compact_bits(code >> 1));
    if (cell.x < grid.x && cell.y < grid.y) {
      if (rank == s) return cell;
      ++rank;
    }
  }
  return uvec2(0u);
}

// Sample s of the set of `count` samples of texel (x, y) in pass `pass`.
vec2 mixforge_cmj_sample(uint64_t seed, uint x, uint y, uint pass, uint s, uint count) {
  uvec2 grid = mixforge_cmj_grid(count);
  uvec2 cell = mixforge_morton_cell(s, grid);
  uint p = mixforge_texel_seed(seed, x, y, pass);
  // Per-lane pattern constants (Kensler's multipliers decorrelate the lanes).
  uvec4 c = uvec4(p) * uvec4(0xa511e9b3u, 0x63d83595u, 0xa399d265u, 0x711ad6a5u);
  uint kx = mixforge_mixers(uvec4(cell.x) ^ c).x;
  uint ky = mixforge_mixers(uvec4(cell.y) ^ c).y;
  // The column / row permutations: the rank of the cell's key among the keys k < m (n).
  uint sx = 0u, sy = 0u;
  for (uint k = 0u; k < grid.x; ++k) sx += mixforge_mixers(uvec4(k) ^ c).x < kx ? 1u : 0u;
  for (uint k = 0u; k < grid.y; ++k) sy += mixforge_mixers(uvec4(k) ^ c).y < ky ? 1u : 0u;
  uvec4 h = mixforge_mixers(uvec4(s) ^ c);
  precise float jx = mixforge_unit_float(h.z);
  precise float jy = mixforge_unit_float(h.w);
  precise float m = float(grid.x);
  precise float n = float(grid.y);
  precise vec2 u = vec2((float(cell.x) + (float(sy) + jx) / n) / m,
                        (float(cell.y) + (float(sx) + jy) / m) / n);
  return u;
}
