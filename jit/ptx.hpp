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
};

// Validates (throws ProgramError); throws JitError when LLVM cannot target NVPTX.
std::string emit_ptx(const Program& program, const PtxOptions& options = {});

}  // namespace mixforge::jit
