#pragma once
// The JIT back end (LLVM ORC): compiles mixing programs to native SIMD kernels for the
// host CPU. One Engine per process is enough; it is thread-safe. Compiled kernels are
// cached by program content while any reference to them is alive; the engine itself
// holds the most recent ones (EngineOptions::keep_recent).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {

// A failure inside LLVM (target setup, code generation, linking), with context.
class JitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EngineOptions {
  // LLVM IR pipeline run before code generation: 0 = none (the emitted IR is already
  // explicitly vectorised), 1 / 2 = the standard O1 / O2 pipelines.
  int ir_opt_level = 0;
  // Code generator optimisation level 0..3 when a compile call does not name one.
  // Measured: O0 compiles 2-3x faster, O1 code runs the sampled count 1.4x faster.
  int codegen_opt_level = 1;
  // The engine keeps the last this-many kernels it handed out alive, so that callers
  // who compile, use and drop (stage after stage of one program) find them again.
  // 0: kernels live exactly as long as the caller's references.
  std::size_t keep_recent = 256;
};

struct EngineStats {
  std::uint64_t compiled_programs = 0;  // programs turned into machine code
  std::uint64_t modules = 0;            // LLVM modules (a batch is one module)
  std::uint64_t cache_hits = 0;         // compile requests answered by a live kernel
  std::uint64_t live_kernels = 0;
  std::uint64_t live_modules = 0;
  double compile_seconds = 0;           // wall time spent building and compiling modules
};

class Engine {
 public:
  explicit Engine(const EngineOptions& options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Validates (throws ProgramError) and compiles, or returns a live cached kernel that
  // has at least the requested parts at codegen level >= codegen_level (0..3; -1 means
  // EngineOptions::codegen_opt_level).
  std::shared_ptr<const Kernel> compile(const mixer::Program& program, unsigned parts = parts_all,
                                        int codegen_level = -1);
  // Several programs in one LLVM module (cheaper per program); result[i] is programs[i].
  std::vector<std::shared_ptr<const Kernel>> compile_batch(std::span<const mixer::Program> programs,
                                                           unsigned parts = parts_all, int codegen_level = -1);

  EngineStats stats() const;
  const EngineOptions& options() const;
  // The host CPU name and the features code is generated for ("znver4 +avx512f,...").
  std::string target_description() const;

  struct Core;  // engine internals shared with the kernels it made

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace mixforge::jit
