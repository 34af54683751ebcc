// Engine behaviour: caching, batches, errors, memory over many compile/release cycles,
// concurrent use.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>

#include "jit/engine.hpp"
#include "mixer/interpreter.hpp"
#include "memory_check.hpp"
#include "support/random_program.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::jit {
namespace {

using testing::random_program;

using mixforge::test::lowbias32;

void expect_matches_interpreter(const Kernel& k, std::uint64_t salt) {
  std::vector<std::uint64_t> in(37), out(37);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = (i + salt) * 0x9e3779b97f4a7c15ull;
  k.apply(in.data(), out.data(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(out[i], mixer::apply(k.program(), in[i])) << k.program().canonical();
}

// Engines that keep nothing beyond the caller's references, for exact lifetime checks.
EngineOptions keep_nothing() {
  EngineOptions o;
  o.keep_recent = 0;
  return o;
}

TEST(Engine, IrPipelinesKeepTheFunction) {
  // ir_opt_level 1 and 2 run LLVM's O1 / O2 pipelines (jit/ir_passes.cpp) before code
  // generation; the kernels must still compute what the interpreter does.
  std::mt19937_64 rng(41);
  for (int level : {1, 2}) {
    EngineOptions options;
    options.ir_opt_level = level;
    Engine engine(options);
    SCOPED_TRACE("ir_opt_level " + std::to_string(level));
    expect_matches_interpreter(*engine.compile(lowbias32()), 3);
    for (int width : {7, 32, 45, 64}) expect_matches_interpreter(*engine.compile(random_program(rng, width, 6)), 5);
  }
}

TEST(Engine, CachesLiveKernelsByContent) {
  Engine engine(keep_nothing());
  auto a = engine.compile(lowbias32());
  auto b = engine.compile(lowbias32());
  EXPECT_EQ(a, b);
  EXPECT_EQ(engine.stats().cache_hits, 1u);
  EXPECT_EQ(engine.stats().compiled_programs, 1u);
  EXPECT_EQ(engine.stats().live_kernels, 1u);
  a.reset();
  b.reset();
  EXPECT_EQ(engine.stats().live_kernels, 0u);
  EXPECT_EQ(engine.stats().live_modules, 0u);
  auto c = engine.compile(lowbias32());  // released: compiled again
  EXPECT_EQ(engine.stats().compiled_programs, 2u);
  expect_matches_interpreter(*c, 1);
}

TEST(Engine, FewerPartsReuseMorePartsRecompile) {
  Engine engine(keep_nothing());
  auto diffs_only = engine.compile(lowbias32(), parts_diffs);
  EXPECT_EQ(diffs_only->parts(), unsigned{parts_diffs});
  EXPECT_THROW(diffs_only->apply(nullptr, nullptr, 0), std::logic_error);
  auto all = engine.compile(lowbias32(), parts_apply);
  EXPECT_NE(all, diffs_only);
  EXPECT_EQ(all->parts(), unsigned{parts_apply | parts_diffs});  // took over the old parts
  EXPECT_EQ(engine.compile(lowbias32(), parts_diffs), all);
}

TEST(Engine, HigherCodegenLevelsServeLowerRequests) {
  Engine engine(keep_nothing());  // default level 1
  auto quick = engine.compile(lowbias32(), parts_diffs, 0);
  EXPECT_EQ(quick->codegen_level(), 0);
  auto normal = engine.compile(lowbias32(), parts_diffs);
  EXPECT_NE(normal, quick);
  EXPECT_EQ(normal->codegen_level(), 1);
  EXPECT_EQ(engine.compile(lowbias32(), parts_diffs, 0), normal);
  auto best = engine.compile(lowbias32(), parts_apply, 3);
  EXPECT_EQ(best->codegen_level(), 3);
  EXPECT_EQ(best->parts(), unsigned{parts_apply | parts_diffs});
  expect_matches_interpreter(*best, 5);
  EXPECT_THROW(engine.compile(lowbias32(), parts_diffs, 4), std::invalid_argument);
  EXPECT_THROW(Engine(EngineOptions{0, 7}), std::invalid_argument);
}

TEST(Engine, KeepsRecentKernelsForCallersThatDropThem) {
  EngineOptions o;
  o.keep_recent = 2;
  Engine engine(o);
  std::mt19937_64 rng(21);
  const mixer::Program a = random_program(rng, 32, 5), b = random_program(rng, 32, 5), c = random_program(rng, 32, 5);
  engine.compile(a);  // dropped at once by the caller, kept by the engine
  engine.compile(a);
  EXPECT_EQ(engine.stats().compiled_programs, 1u);
  engine.compile(b);
  engine.compile(c);  // a has now been pushed out of the ring of 2
  EXPECT_EQ(engine.stats().live_kernels, 2u);
  engine.compile(a);
  EXPECT_EQ(engine.stats().compiled_programs, 4u);
}

TEST(Engine, BatchMatchesSingleAndDeduplicates) {
  Engine engine(keep_nothing());
  std::mt19937_64 rng(3);
  std::vector<mixer::Program> programs;
  for (int i = 0; i < 20; ++i) programs.push_back(random_program(rng, 1 + static_cast<int>(rng() % 64), 6));
  programs.push_back(programs[3]);  // a duplicate inside the batch
  auto kernels = engine.compile_batch(programs);
  ASSERT_EQ(kernels.size(), programs.size());
  EXPECT_EQ(kernels[3], kernels.back());
  EXPECT_EQ(engine.stats().modules, 1u);
  EXPECT_EQ(engine.stats().compiled_programs, 20u);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(kernels[i]->program(), programs[i]);
    expect_matches_interpreter(*kernels[i], i);
  }
  // Code of a batch lives while any of its kernels does.
  auto keep = kernels[7];
  kernels.clear();
  EXPECT_EQ(engine.stats().live_modules, 1u);
  expect_matches_interpreter(*keep, 99);
  keep.reset();
  EXPECT_EQ(engine.stats().live_modules, 0u);
}

TEST(Engine, RejectsInvalidProgramsWithTheirError) {
  Engine engine;
  EXPECT_THROW(engine.compile(mixer::Program(32, {{mixer::StepKind::mul_const, 2}})), mixer::ProgramError);
  EXPECT_THROW(engine.compile(mixer::Program(32, {{mixer::StepKind::xorshift_right, 32}})), mixer::ProgramError);
  EXPECT_THROW(engine.compile(mixer::Program(65, {})), mixer::ProgramError);
  EXPECT_THROW(engine.compile(lowbias32(), 0), std::invalid_argument);
  EXPECT_EQ(engine.stats().compiled_programs, 0u);
}

TEST(Engine, EmptyProgramIsTheIdentity) {
  Engine engine;
  auto k = engine.compile(mixer::Program(13, {}));
  std::uint64_t in[3] = {0, 8191, 123456}, out[3];
  k->apply(in, out, 3);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 8191u);
  EXPECT_EQ(out[2], 123456u & 8191u);
}

TEST(Engine, DescribesItsTarget) {
  Engine engine;
  EXPECT_FALSE(engine.target_description().empty());
}

TEST(Engine, MemoryStaysFlatOverCompileReleaseCycles) {
  // 1,000 cycles here; engine_longtest.cpp runs 100,000 (label "long").
  expect_flat_memory(500, 1000, 16 * 1024);
}

TEST(Engine, CompilesAndRunsFromManyThreads) {
  Engine engine(keep_nothing());
  const int threads = 6;
  std::vector<std::thread> pool;
  std::vector<int> failures(threads, 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t % 3);  // pairs of threads ask for the same programs
      for (int i = 0; i < 60; ++i) {
        const mixer::Program p = random_program(rng, 1 + static_cast<int>(rng() % 64), 5);
        auto k = i % 5 == 0 ? engine.compile_batch(std::vector<mixer::Program>{p, lowbias32()})[0] : engine.compile(p);
        std::vector<std::uint64_t> in(64), out(64);
        for (std::size_t j = 0; j < in.size(); ++j) in[j] = rng();
        k->apply(in.data(), out.data(), in.size());
        for (std::size_t j = 0; j < in.size(); ++j) failures[t] += out[j] != mixer::apply(p, in[j]);
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(engine.stats().live_kernels, 0u);
}

}  // namespace
}  // namespace mixforge::jit
