#include "jit/warp_simulator.hpp"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "jit/count_kernels.hpp"
#include "jit/engine.hpp"
#include "jit/ir_passes.hpp"
#include "jit/mix_ir.hpp"

namespace mixforge::jit {

namespace {
using WarpFn = void (*)(std::uint64_t*, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                        std::uint64_t, std::uint32_t);

template <class T>
T check(const char* what, llvm::Expected<T> value) {
  if (!value) throw JitError(std::string("warp simulator: ") + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}
// instcombine and early-cse before code generation: the unrolled kernels hand the
// SelectionDAG tens of thousands of vector instructions, and its combines (known bits,
// demanded bits) took 97 % of the simulator's time. These two IR passes shrink that work:
// the GpuSimulation tests took 77 s without them and 34 s with them (instcombine alone 48 s,
// early-cse alone 66 s, the whole O1 pipeline 58 s), the counts unchanged.
void simplify(llvm::Module& module) {
  run_ir_passes(module, nullptr, "function(instcombine,early-cse)", "warp simulator");
}
}  // namespace

struct WarpSimulator::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;  // owns the code
  WarpFn exact = nullptr;
  WarpFn sampled = nullptr;
  int width = 0;
  std::size_t programs = 0;
  std::uint64_t granule = 32;
};

WarpSimulator::WarpSimulator(std::span<const mixer::Program> programs, const CountKernelOptions& options,
                             CountKernels which)
    : impl_(std::make_unique<Impl>()) {
  for (const mixer::Program& p : programs) mixer::validate(p, mixer::ValidationLimits{1 << 16});
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // Its own small LLJIT (LLVM's OrcV2 example set-up): the engine's kernel cache and
  // pooled target machines are for the hot CPU path, not for this.
  auto jtmb = check("detecting the host", llvm::orc::JITTargetMachineBuilder::detectHost());
  // The kernels are fully unrolled over input bits (thousands of vector instructions at
  // 64 bits): optimising code generation costs far more than it saves in a test (the IR
  // is simplified first, below).
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  const std::string cpu = jtmb.getCPU();
  const std::string features = jtmb.getFeatures().getString();
  impl_->jit = check("creating the JIT", llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create());
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("mixforge_warp_simulator", *context);
  module->setDataLayout(impl_->jit->getDataLayout());
  module->setTargetTriple(impl_->jit->getTargetTriple().str());
  emit_count_kernels_ir(*module, programs, CountTarget::host, options, which, cpu, features);
  {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(*module, &os)) throw JitError("warp simulator: emitted IR is invalid (a bug): " + message);
  }
  simplify(*module);
  if (llvm::Error e = impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    throw JitError("warp simulator: adding the module: " + llvm::toString(std::move(e)));
  impl_->width = programs.front().width();
  impl_->programs = programs.size();
  impl_->granule = jit::exact_granule(impl_->width, options);
  if (impl_->width <= 32 && which != CountKernels::sampled)
    impl_->exact = check("compiling", impl_->jit->lookup(count_kernel_exact)).toPtr<WarpFn>();
  if (which != CountKernels::exact)
    impl_->sampled = check("compiling", impl_->jit->lookup(count_kernel_sampled)).toPtr<WarpFn>();
}

WarpSimulator::~WarpSimulator() = default;

int WarpSimulator::width() const { return impl_->width; }
std::size_t WarpSimulator::programs() const { return impl_->programs; }
std::uint64_t WarpSimulator::exact_granule() const { return impl_->granule; }

void WarpSimulator::run_warp(Kind kind, std::uint64_t* counts, std::uint64_t first, std::uint64_t end,
                             std::uint64_t per_warp, std::uint64_t seed, std::uint64_t warp,
                             std::uint32_t program) const {
  WarpFn fn = kind == Kind::exact ? impl_->exact : impl_->sampled;
  if (!fn)
    throw std::invalid_argument(kind == Kind::exact && impl_->width > 32
                                    ? "warp simulator: exact counts need a width <= 32"
                                    : "warp simulator: that kernel was not compiled (see `which`)");
  if (per_warp == 0 || per_warp % 32 != 0 || per_warp > max_per_warp)
    throw std::invalid_argument("warp simulator: per_warp must be a multiple of 32 in [32, 2^30]");
  if (kind == Kind::exact && (per_warp % impl_->granule != 0 || first % impl_->granule != 0))
    throw std::invalid_argument("warp simulator: the tiled exact kernel needs first and per_warp in multiples of " +
                                std::to_string(impl_->granule));
  fn(counts, first, end, per_warp, seed, warp, program);
}

}  // namespace mixforge::jit
