#pragma once
// PTX (CUDA assembly) for a program, from the same IR emitter as the CPU kernels. Load
// the text with cuModuleLoadDataEx and launch `kernel_name`(in, out, n) with one thread
// per value: out[i] = f(in[i] & mask) for i < n (u64 arrays in global memory).
#include <string>

#include "mixer/program.hpp"

namespace mixforge::jit {

struct PtxOptions {
  std::string gpu = "sm_90";         // Hopper
  std::string features = "+ptx80";  // PTX ISA 8.0
  std::string kernel_name = "mixforge_apply";
  // An LLVM pass pipeline (opt's -passes syntax) run on the IR before NVPTX code
  // generation; empty, the default, runs none. ptxas optimises the PTX anyway: on the
  // counting kernels, instcombine,early-cse left the SASS within 3 % and doubled the
  // emit time, and O1/O3 made more registers and spills (bench/ptx_passes.sh). Kept as an
  // option so that a GPU session can time kernels built either way.
  std::string ir_passes = {};
};

// Validates (throws ProgramError); throws JitError when LLVM cannot target NVPTX.
std::string emit_ptx(const mixer::Program& program, const PtxOptions& options = {});

}  // namespace mixforge::jit
