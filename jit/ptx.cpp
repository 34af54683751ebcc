#include "jit/ptx.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <functional>
#include <memory>
#include <mutex>

#include "jit/count_kernels.hpp"
#include "jit/engine.hpp"
#include "jit/ir_passes.hpp"
#include "jit/mix_ir.hpp"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace mixforge::jit {
namespace {

// Builds a module for the GPU named in options with `emit` and returns its PTX text.
std::string compile_to_ptx(const PtxOptions& options, const std::function<void(llvm::Module&)>& emit) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  const llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
  if (!target) throw JitError("ptx: NVPTX target unavailable: " + error);
  // Check the GPU name first: LLVM would only warn on stderr and emit generic code.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(triple.str(), "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(options.gpu))
    throw JitError("ptx: unknown GPU \"" + options.gpu + "\" (expected a name like sm_90)");
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple.str(), options.gpu, options.features, llvm::TargetOptions(), std::nullopt));
  if (!tm) throw JitError("ptx: cannot create a target machine for " + options.gpu);

  llvm::LLVMContext context;
  llvm::Module module("mixforge_ptx", context);
  module.setTargetTriple(triple.str());
  module.setDataLayout(tm->createDataLayout());
  emit(module);
  {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(module, &os)) throw JitError("ptx: emitted IR is invalid (a bug): " + message);
  }
  if (!options.ir_passes.empty()) run_ir_passes(module, tm.get(), options.ir_passes, "ptx");
  llvm::SmallString<4096> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager passes;
  if (tm->addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw JitError("ptx: the NVPTX back end cannot emit assembly");
  passes.run(module);
  return std::string(ptx.str());
}

}  // namespace

std::string emit_ptx(const mixer::Program& program, const PtxOptions& options) {
  mixer::validate(program, mixer::ValidationLimits{1 << 16});
  return compile_to_ptx(options, [&](llvm::Module& m) { emit_ptx_kernel_ir(m, program, options.kernel_name); });
}

std::string emit_count_ptx(std::span<const mixer::Program> programs, const PtxOptions& options,
                           const CountKernelOptions& kernels, CountKernels which) {
  for (const mixer::Program& p : programs) mixer::validate(p, mixer::ValidationLimits{1 << 16});
  return compile_to_ptx(
      options, [&](llvm::Module& m) { emit_count_kernels_ir(m, programs, CountTarget::nvptx, kernels, which); });
}

}  // namespace mixforge::jit
