#pragma once
// Runs an LLVM pass pipeline on a module: the new pass manager's set-up (four analysis
// managers, registered and cross-proxied, as in LLVM's OrcV2 examples) in one place for
// the CPU engine, the PTX emitter and the warp simulator. Internal to jit/; LLVM types
// by forward declaration only.
#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace mixforge::jit {

// `pipeline` in opt's -passes syntax ("default<O2>", "function(instcombine,early-cse)");
// `tm` may be null (no target-specific analyses). Throws JitError, prefixed with `who`,
// when the pipeline does not parse.
void run_ir_passes(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline,
                   const std::string& who);

}  // namespace mixforge::jit
