#pragma once
// Private to jit/: emits the LLVM IR of a program's kernel functions.
#include <span>
#include <string>

#include "jit/count_kernels.hpp"
#include "jit/kernel.hpp"
#include "mixer/program.hpp"

namespace llvm {
class IRBuilderBase;
class Module;
class Value;
}

namespace mixforge::jit {

struct KernelSymbols {
  std::string apply, tile, diffs;  // tile is empty for widths > 32
};

// Adds the functions of `program` to `module`, named after `prefix`. cpu and features
// become function attributes so codegen uses the host's vector extensions.
// parts: a mask of Parts (jit/kernel.hpp).
KernelSymbols emit_kernel_ir(llvm::Module& module, const mixer::Program& program, unsigned parts,
                             const std::string& prefix, const std::string& cpu, const std::string& features);

// Emits f(x) on a scalar or vector of 32- or 64-bit containers holding n-bit values;
// input_clean: the bits of x above n are known to be zero.
llvm::Value* emit_mix(llvm::IRBuilderBase& b, llvm::Value* x, const mixer::Program& program, bool input_clean);

// Adds a CUDA kernel `name`(const u64* in, u64* out, u64 n): thread i < n computes
// out[i] = f(in[i] & mask). For the NVPTX target (ptx.hpp).
void emit_ptx_kernel_ir(llvm::Module& module, const mixer::Program& program, const std::string& name);

enum class CountTarget { nvptx, host };

// Adds the counting kernels of jit/count_kernels.hpp for a batch of programs of one width:
// for the NVPTX target as CUDA kernels, for the host as warp-simulating functions that
// take (warp, program) as two extra arguments (jit/warp_simulator.hpp). cpu and features
// are used for the host target only.
void emit_count_kernels_ir(llvm::Module& module, std::span<const mixer::Program> programs, CountTarget target,
                           const CountKernelOptions& options, CountKernels which, const std::string& cpu = {},
                           const std::string& features = {});

}  // namespace mixforge::jit
