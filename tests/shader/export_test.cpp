// The exporters' text and contracts (no external tools): header comment, names, masks,
// errors, vec4 rules, rand_range reference, bundle layout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mixer/interpreter.hpp"
#include "mixer/inverse.hpp"
#include "shader/bundle.hpp"
#include "shader/export.hpp"
#include "shader/ranged.hpp"
#include "shader/vec4_packing.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::shader {
namespace {

using K = mixer::StepKind;

using mixforge::test::lowbias32;

ExportRequest request(Target t, mixer::Program p) {
  ExportRequest r;
  r.target = t;
  r.programs = {{std::move(p), std::nullopt}};
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ShaderExport, ScalarSignaturesFollowEachTargetsConventions) {
  const mixer::Program p = lowbias32();
  auto code = [&](Target t) {
    ExportRequest r = request(t, p);
    r.name = "hash";
    return export_code(r);
  };
  EXPECT_TRUE(contains(code(Target::glsl), "uint hash(uint x) {"));
  EXPECT_TRUE(contains(code(Target::hlsl), "uint hash(uint x) {"));
  EXPECT_TRUE(contains(code(Target::wgsl), "fn hash(x_in: u32) -> u32 {\n  var x = x_in;"));
  EXPECT_TRUE(contains(code(Target::msl), "inline uint hash(uint x) {"));
  EXPECT_TRUE(contains(code(Target::cuda), "__device__ __forceinline__ uint32_t hash(uint32_t x) {"));
  EXPECT_TRUE(contains(code(Target::cpp), "constexpr std::uint32_t hash(std::uint32_t x) noexcept {"));
  // One body for all: the same statements, spelled per target.
  EXPECT_TRUE(contains(code(Target::glsl), "  x ^= x >> 16u;\n  x *= 0x7feb352du;\n"));
  EXPECT_TRUE(contains(code(Target::wgsl), "  x ^= x >> 16u;\n  x *= 0x7feb352du;\n"));
  EXPECT_TRUE(contains(code(Target::glsl), "  return x;\n}"));
  // 32-bit programs need no masks.
  EXPECT_FALSE(contains(code(Target::glsl), "&"));
}

TEST(ShaderExport, HeaderCarriesIdWidthAndScoreOrSaysNotScored) {
  const mixer::Program p = lowbias32();
  ExportRequest r = request(Target::glsl, p);
  std::string code = export_code(r);
  EXPECT_TRUE(contains(code, "program " + p.id() + ", width 32: xsr 16, mul 0x7feb352d")) << code;
  EXPECT_TRUE(contains(code, "chi2: not scored")) << code;
  r.programs[0].score = ProgramScore{1.25e-7, 0.0213, true, 0};
  code = export_code(r);
  EXPECT_TRUE(contains(code, "exact chi2: 1.25e-07, bias: 0.0213")) << code;
  EXPECT_FALSE(contains(code, "not scored"));
  EXPECT_FALSE(contains(code, "RRC depth"));
  // The RRC depth where its run measured it: the failing length, or > the cap.
  r.programs[0].score->rrc_depth_log2 = 12;
  EXPECT_TRUE(contains(export_code(r), "exact chi2: 1.25e-07, bias: 0.0213, RRC depth: 12")) << export_code(r);
  r.programs[0].score->rrc_passed_cap = true;
  r.programs[0].score->rrc_depth_log2 = 20;
  EXPECT_TRUE(contains(export_code(r), ", RRC depth: >20")) << export_code(r);
}

TEST(ShaderExport, DefaultNameComesFromWidthAndId) {
  const mixer::Program p = lowbias32();
  const ExportRequest r = request(Target::glsl, p);
  EXPECT_EQ(function_name(r), "mix32_" + p.id().substr(0, 8));
  ExportRequest inv = r;
  inv.inverse = true;
  EXPECT_EQ(function_name(inv), "unmix32_" + p.id().substr(0, 8));
}

TEST(ShaderExport, BadNamesAreRejectedWithTheReason) {
  ExportRequest r = request(Target::glsl, lowbias32());
  for (const char* bad : {"2hash", "my-hash", "gl_hash", "a__b", "return", "fn", "_x", "seed", ""}) {
    r.name = bad;
    if (!*bad) continue;  // empty means "default"
    EXPECT_THROW(export_code(r), ExportError) << bad;
  }
  r.name = "my-hash";
  try {
    export_code(r);
    FAIL() << "the name my-hash was accepted";
  } catch (const ExportError& e) {
    EXPECT_TRUE(contains(e.what(), "'-' at position 3")) << e.what();
  }
}

TEST(ShaderExport, NarrowWidthsMaskAfterStepsThatCarry) {
  // 7-bit: mask the input and after each multiply, not after xor-shift-right.
  const mixer::Program p(7, {{K::xorshift_right, 4}, {K::mul_const, 67}, {K::xorshift_right, 3}});
  ExportRequest r = request(Target::glsl, p);
  r.name = "h7";
  EXPECT_TRUE(contains(export_code(r), "  x &= 0x7fu;\n  x ^= x >> 4u;\n  x = (x * 0x43u) & 0x7fu;\n  x ^= x >> 3u;\n"))
      << export_code(r);
  r.constants = ConstantStyle::decimal;
  EXPECT_TRUE(contains(export_code(r), "x = (x * 67u) & 0x7fu;")) << export_code(r);
}

TEST(ShaderExport, SixtyFourBitUsesEachTargetsWideType) {
  const mixer::Program p(64, {{K::xorshift_right, 30}, {K::mul_const, 0xbf58476d1ce4e5b9ull}, {K::xorshift_right, 27}});
  auto code = [&](Target t) { return export_code(request(t, p)); };
  EXPECT_TRUE(contains(code(Target::glsl), "#extension GL_ARB_gpu_shader_int64 : require"));
  EXPECT_TRUE(contains(code(Target::glsl), "x *= 0xbf58476d1ce4e5b9ul;"));
  EXPECT_TRUE(contains(code(Target::hlsl), "uint64_t x"));
  EXPECT_TRUE(contains(code(Target::msl), "ulong x"));
  EXPECT_TRUE(contains(code(Target::cuda), "uint64_t x"));
  EXPECT_TRUE(contains(code(Target::cpp), "x *= 0xbf58476d1ce4e5b9ull;"));
  try {
    code(Target::wgsl);
    FAIL() << "WGSL has no 64-bit integers";
  } catch (const ExportError& e) {
    EXPECT_TRUE(contains(e.what(), "WGSL has no 64-bit integer type")) << e.what();
  }
}

TEST(ShaderExport, InverseExportsTheInverseProgram) {
  ExportRequest r = request(Target::cpp, lowbias32());
  r.inverse = true;
  const std::string code = export_code(r);
  EXPECT_TRUE(contains(code, "inverse of program " + lowbias32().id()));
  // The modular inverse of 0x846ca68b appears as a constant.
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx",
                static_cast<unsigned long long>(mixer::inverse_mod_2_64(0x846ca68b) & 0xffffffff));
  EXPECT_TRUE(contains(code, buf)) << code;
}

TEST(ShaderExport, Vec4NeedsTheSameStepKinds) {
  ExportRequest r;
  r.target = Target::glsl;
  r.vec4 = true;
  for (const mixer::Program& p : writeup_permute4()) r.programs.push_back({p, std::nullopt});
  EXPECT_NO_THROW(export_code(r));
  r.programs[2].program = mixer::Program(32, {{K::xorshift_right, 16},
                                              {K::add_const, 5},
                                              {K::xorshift_right, 14},
                                              {K::mul_const, 3},
                                              {K::xorshift_right, 19}});
  try {
    export_code(r);
    FAIL();
  } catch (const ExportError& e) {
    EXPECT_TRUE(contains(e.what(), "lane z step 2 is add-const but lane x has mul-const")) << e.what();
  }
  r.programs[2].program = mixer::Program(40, {{K::xorshift_right, 16}});
  EXPECT_THROW(export_code(r), ExportError);
}

TEST(ShaderExport, WriteupPermute4IsReproduced) {
  ExportRequest r;
  r.target = Target::glsl;
  r.vec4 = true;
  r.seeded = true;
  r.name = "Permute4";
  r.constants = ConstantStyle::decimal;
  for (const mixer::Program& p : writeup_permute4()) r.programs.push_back({p, std::nullopt});
  const std::string code = export_code(r);
  // The write-up's per-step lane constants, 7-bit lanes masked by 127 after each multiply,
  // short lanes xor-ed with the seed.
  EXPECT_TRUE(contains(code,
                       "uvec4 Permute4(uvec4 v, uint seed) {\n"
                       "  v ^= uvec4(seed, seed, 0u, 0u);\n"
                       "  v &= uvec4(0x7fu, 0x7fu, 0xffffffffu, 0xffffffffu);\n"
                       "  v ^= v >> uvec4(3u, 3u, 16u, 16u);\n"
                       "  v = (v * uvec4(107u, 67u, 322022693u, 322022693u)) & uvec4(0x7fu, 0x7fu, 0xffffffffu, 0xffffffffu);\n"
                       "  v ^= v >> uvec4(3u, 4u, 14u, 13u);\n"
                       "  v = (v * uvec4(69u, 21u, 3968764237u, 2235360983u)) & uvec4(0x7fu, 0x7fu, 0xffffffffu, 0xffffffffu);\n"
                       "  v ^= v >> uvec4(4u, 3u, 19u, 18u);\n"
                       "  return v;\n}\n"))
      << code;
  // CUDA writes the same function lane by lane, without the no-op lanes.
  r.target = Target::cuda;
  const std::string cuda = export_code(r);
  EXPECT_TRUE(contains(cuda, "__device__ __forceinline__ uint4 Permute4(uint4 v, uint32_t seed) {\n"
                             "  v.x ^= seed;\n  v.y ^= seed;\n  v.x &= 0x7fu;\n  v.y &= 0x7fu;\n"))
      << cuda;
  EXPECT_TRUE(contains(cuda, "  v.z *= 322022693u;\n")) << cuda;
  // The reference: each lane is its program applied to (input ^ seed) for 7-bit lanes.
  const auto lanes = writeup_permute4();
  const auto out = reference_vec4(lanes, {5, 200, 123456, 7}, true, 0xabcdef01u);
  EXPECT_EQ(out[0], mixer::apply(lanes[0], 5 ^ 0xabcdef01u));
  EXPECT_EQ(out[1], mixer::apply(lanes[1], 200 ^ 0xabcdef01u));
  EXPECT_EQ(out[2], mixer::apply(lanes[2], 123456));
  EXPECT_LT(out[0], 128u);
}

TEST(ShaderExport, RangeNeedsA32BitProgramAndEmitsBothMethods) {
  ExportRequest r = request(Target::glsl, lowbias32());
  r.name = "hash";
  r.range = RangeMethod::jitter;
  std::string code = export_code(r);
  EXPECT_TRUE(contains(code, "uint hash_range(uint seed, uint r) {\n  uint h = hash(seed);")) << code;
  EXPECT_TRUE(contains(code, "return ((r * (h & 0xffffu)) + (h % r)) >> 16u;")) << code;
  r.range = RangeMethod::fraction;
  EXPECT_TRUE(contains(export_code(r), "return (r * (h & 0xffffu)) >> 16u;"));
  r.target = Target::wgsl;
  EXPECT_TRUE(contains(export_code(r), "fn hash_range(seed: u32, r: u32) -> u32 {\n  var h: u32 = hash(seed);"))
      << export_code(r);
  ExportRequest narrow = request(Target::glsl, mixer::Program(16, {{K::mul_const, 3}}));
  narrow.range = RangeMethod::jitter;
  EXPECT_THROW(export_code(narrow), ExportError);
}

TEST(RandRange, StaysInRange) {
  std::uint64_t z = 1;
  for (int i = 0; i < 1 << 20; ++i) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    const auto h = static_cast<std::uint32_t>(z >> 32);
    const std::uint32_t r = 1 + static_cast<std::uint32_t>(z >> 8) % 65536;
    ASSERT_LT(rand_range_jitter(h, r), r);
    ASSERT_LT(rand_range_fraction(h, r), r);
  }
  EXPECT_EQ(rand_range_jitter(0xffffffffu, 65536), 65535u);
  EXPECT_EQ(rand_range_fraction(0xffffffffu, 3), 2u);
  EXPECT_EQ(rand_range_jitter(0, 1), 0u);
}

TEST(RandRange, JitterEvensOutTheFractionsTruncationForOddR) {
  for (std::uint32_t r : {3u, 7u, 101u, 999u}) {
    // Over h = f + 2^16 k for every f and r consecutive k, h % r takes every residue once
    // per f (r odd), so jitter hits every bucket equally often; the plain fraction
    // does not (65536 is not a multiple of r).
    std::vector<std::uint64_t> jitter(r, 0), fraction(r, 0);
    for (std::uint32_t k = 0; k < r; ++k)
      for (std::uint32_t f = 0; f < 65536; ++f) {
        const std::uint32_t h = f + 65536u * k;
        ++jitter[rand_range_jitter(h, r)];
        ++fraction[rand_range_fraction(h, r)];
      }
    bool fraction_uneven = false;
    for (std::uint32_t i = 1; i < r; ++i) {
      EXPECT_EQ(jitter[i], jitter[0]) << "r = " << r;
      fraction_uneven = fraction_uneven || fraction[i] != fraction[0];
    }
    EXPECT_TRUE(fraction_uneven) << "r = " << r;
  }
}

TEST(ShaderBundle, HoldsProgramsAndEveryTargetsCode) {
  const mixer::Program p64(64, {{K::xorshift_right, 30}, {K::mul_const, 0xbf58476d1ce4e5b9ull}});
  ExportRequest r = request(Target::glsl, p64);
  r.programs[0].score = ProgramScore{0.5, 1.0, false, 1u << 20};
  const nlohmann::json b = export_bundle(r);
  EXPECT_EQ(b["format"], "mixforge-shader-bundle");
  EXPECT_EQ(b["programs"][0]["id"], p64.id());
  EXPECT_EQ(b["programs"][0]["program"]["width"], 64);
  EXPECT_EQ(b["programs"][0]["score"]["samples"], 1u << 20);
  for (const char* t : {"glsl", "hlsl", "msl", "cuda", "cpp"}) {  // every target but WGSL
    ASSERT_TRUE(b["code"].contains(t)) << t;
    ExportRequest one = r;
    one.target = *target_from_name(t);
    EXPECT_EQ(b["code"][t], export_code(one));  // the same text as a single export
  }
  EXPECT_FALSE(b["code"].contains("wgsl"));
  EXPECT_TRUE(contains(b["unsupported"]["wgsl"].get<std::string>(), "64-bit"));
}

TEST(ShaderExport, Vec4WithFewerProgramsRepeatsTheLastLane) {
  ExportRequest r;
  r.target = Target::hlsl;
  r.vec4 = true;
  r.name = "pair";
  const auto lanes = writeup_permute4();
  r.programs = {{lanes[0], std::nullopt}, {lanes[1], std::nullopt}};
  const std::string code = export_code(r);
  EXPECT_TRUE(contains(code, "lane z: repeats lane y")) << code;
  EXPECT_TRUE(contains(code, "uint4(107u, 67u, 67u, 67u)") || contains(code, "uint4(0x6bu, 0x43u, 0x43u, 0x43u)")) << code;
  r.programs.clear();
  EXPECT_THROW(export_code(r), ExportError);
}

TEST(ShaderExport, InvalidProgramsAreReportedWithTheStep) {
  ExportRequest r = request(Target::glsl, mixer::Program(8, {{K::xorshift_right, 3}, {K::mul_const, 4}}));
  try {
    export_code(r);
    FAIL();
  } catch (const ExportError& e) {
    EXPECT_TRUE(contains(e.what(), "program 1 step 2: multiplier 0x4 is even")) << e.what();
  }
}

}  // namespace
}  // namespace mixforge::shader
