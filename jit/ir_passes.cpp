#include "jit/ir_passes.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/engine.hpp"

namespace mixforge::jit {

void run_ir_passes(llvm::Module& module, llvm::TargetMachine* tm, const std::string& pipeline,
                   const std::string& who) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (llvm::Error e = pb.parsePassPipeline(mpm, pipeline))
    throw JitError(who + ": IR pass pipeline \"" + pipeline + "\": " + llvm::toString(std::move(e)));
  mpm.run(module, mam);
}

}  // namespace mixforge::jit
