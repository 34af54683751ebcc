#pragma once
// Private to jit/: emits the LLVM IR of a program's kernel functions.
#include <string>

#include "jit/kernel.hpp"
#include "mixer/program.hpp"

namespace llvm {
class Module;
}

namespace mixforge::jit {

struct KernelSymbols {
  std::string apply, tile, diffs;  // tile is empty for widths > 32
};

// Adds the functions of `program` to `module`, named after `prefix`. cpu and features
// become function attributes so codegen uses the host's vector extensions.
// parts: a mask of Parts (jit/kernel.hpp).
KernelSymbols emit_kernel_ir(llvm::Module& module, const Program& program, unsigned parts,
                             const std::string& prefix, const std::string& cpu,
                             const std::string& features);

// Adds a CUDA kernel `name`(const u64* in, u64* out, u64 n): thread i < n computes
// out[i] = f(in[i] & mask). For the NVPTX target (ptx.hpp).
void emit_ptx_kernel_ir(llvm::Module& module, const Program& program, const std::string& name);

}  // namespace mixforge::jit
