#include "jit/engine.hpp"

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "jit/ir_passes.hpp"
#include "jit/mix_ir.hpp"

namespace mixforge::jit {
namespace {

namespace orc = llvm::orc;

// llvm::Error -> JitError with context. LLVM is built without exceptions, so errors
// become exceptions only here, in our own frames.
[[noreturn]] void fail(const std::string& what, llvm::Error err) {
  throw JitError("jit: " + what + ": " + llvm::toString(std::move(err)));
}
template <class T>
T check(const std::string& what, llvm::Expected<T> value) {
  if (!value) fail(what, value.takeError());
  return std::move(*value);
}

void initialise_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::CodeGenOptLevel codegen_level(int level) {
  switch (level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

// TargetMachines are not thread-safe, and making one costs more than compiling a small
// module, so concurrent compiles borrow them from a pool, one free list per codegen level.
class TargetMachinePool {
 public:
  explicit TargetMachinePool(orc::JITTargetMachineBuilder jtmb) : jtmb_(std::move(jtmb)) {}
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> take(int level) {
    {
      std::lock_guard lock(mu_);
      auto& list = free_[static_cast<std::size_t>(level)];
      if (!list.empty()) {
        auto tm = std::move(list.back());
        list.pop_back();
        return tm;
      }
    }
    orc::JITTargetMachineBuilder jtmb = jtmb_;
    jtmb.setCodeGenOptLevel(codegen_level(level));
    return jtmb.createTargetMachine();
  }
  void give(int level, std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard lock(mu_);
    free_[static_cast<std::size_t>(level)].push_back(std::move(tm));
  }

 private:
  orc::JITTargetMachineBuilder jtmb_;
  std::mutex mu_;
  std::array<std::vector<std::unique_ptr<llvm::TargetMachine>>, 4> free_;
};

// The codegen level travels with each module as a module flag.
constexpr const char* level_flag = "mixforge.codegen-level";

int module_codegen_level(const llvm::Module& m) {
  if (auto* c = llvm::mdconst::extract_or_null<llvm::ConstantInt>(m.getModuleFlag(level_flag)))
    return static_cast<int>(c->getZExtValue());
  return 1;
}

class PooledCompiler : public orc::IRCompileLayer::IRCompiler {
 public:
  PooledCompiler(std::shared_ptr<TargetMachinePool> pool, const llvm::TargetOptions& options)
      : IRCompiler(orc::irManglingOptionsFromTargetOptions(options)), pool_(std::move(pool)) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    const int level = module_codegen_level(m);
    auto tm = pool_->take(level);
    if (!tm) return tm.takeError();
    auto object = orc::SimpleCompiler(**tm)(m);
    pool_->give(level, std::move(*tm));
    return object;
  }

 private:
  std::shared_ptr<TargetMachinePool> pool_;
};

// The pipelines are fixed strings that parse (run_ir_passes throws only on a bad one).
void run_ir_pipeline(llvm::Module& m, llvm::TargetMachine* tm, int level) {
  run_ir_passes(m, tm, level >= 2 ? "default<O2>" : "default<O1>", "jit");
}

}  // namespace

struct Engine::Core {
  EngineOptions options;
  std::shared_ptr<TargetMachinePool> pool;
  std::unique_ptr<orc::LLJIT> jit;
  std::string cpu, features;

  std::mutex cache_mu;
  struct CacheEntry {
    mixer::Program program;
    std::weak_ptr<const Kernel> kernel;
  };
  std::unordered_map<std::uint64_t, CacheEntry> cache;  // by Program::hash() (its id)
  std::size_t sweep_at = 1024;
  std::vector<std::shared_ptr<const Kernel>> recent;  // ring of options.keep_recent
  std::size_t recent_next = 0;

  std::atomic<std::uint64_t> sequence{0}, compiled{0}, modules{0}, hits{0}, live_kernels{0},
      live_modules{0}, released_modules{0}, compile_ns{0};
};

namespace {

// The machine code of one module; removed from the JIT when the last kernel goes.
struct ModuleCode {
  std::shared_ptr<Engine::Core> core;
  orc::ResourceTrackerSP tracker;
  ModuleCode(std::shared_ptr<Engine::Core> c, orc::ResourceTrackerSP t)
      : core(std::move(c)), tracker(std::move(t)) {}
  ModuleCode(const ModuleCode&) = delete;
  ModuleCode& operator=(const ModuleCode&) = delete;
  ~ModuleCode() {
    if (llvm::Error err = tracker->remove())
      std::fprintf(stderr, "mixforge jit: releasing code failed: %s\n",
                   llvm::toString(std::move(err)).c_str());
    core->live_modules.fetch_sub(1);
    // Symbol names are interned; drop the dead ones now and then so memory stays flat.
    if (core->released_modules.fetch_add(1) % 256 == 255)
      core->jit->getExecutionSession().getSymbolStringPool()->clearDeadEntries();
  }
};

std::vector<std::shared_ptr<const Kernel>> compile_new(const std::shared_ptr<Engine::Core>& core,
                                                       const std::vector<const mixer::Program*>& programs,
                                                       const std::vector<unsigned>& parts, int level) {
  const auto start = std::chrono::steady_clock::now();
  orc::LLJIT& jit = *core->jit;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("mixforge", *context);
  module->setDataLayout(jit.getDataLayout());
  module->setTargetTriple(jit.getTargetTriple().str());
  module->addModuleFlag(llvm::Module::Warning, level_flag, static_cast<std::uint32_t>(level));
  std::vector<KernelSymbols> symbols;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const std::string prefix = "mf" + std::to_string(core->sequence.fetch_add(1));
    symbols.push_back(emit_kernel_ir(*module, *programs[i], parts[i], prefix, core->cpu, core->features));
  }
  {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(*module, &os))
      throw JitError("jit: emitted IR is invalid (a bug): " + os.str());
  }
  orc::ResourceTrackerSP tracker = jit.getMainJITDylib().createResourceTracker();
  if (llvm::Error err = jit.addIRModule(tracker, orc::ThreadSafeModule(std::move(module), std::move(context))))
    fail("adding module", std::move(err));
  // From here on the tracker owns code (or a failed materialisation): release it on any exit.
  core->live_modules.fetch_add(1);
  auto code = std::make_shared<ModuleCode>(core, tracker);

  orc::SymbolLookupSet lookup;
  std::vector<std::array<orc::SymbolStringPtr, 3>> names;
  for (const KernelSymbols& s : symbols) {
    auto intern = [&](const std::string& name) {
      return name.empty() ? orc::SymbolStringPtr() : jit.mangleAndIntern(name);
    };
    std::array<orc::SymbolStringPtr, 3> n{intern(s.apply), intern(s.tile), intern(s.diffs)};
    for (auto& name : n)
      if (name) lookup.add(name);
    names.push_back(std::move(n));
  }
  auto& es = jit.getExecutionSession();
  orc::SymbolMap found = check("compiling " + std::to_string(programs.size()) + " program(s)",
                               es.lookup(orc::makeJITDylibSearchOrder(&jit.getMainJITDylib()),
                                         std::move(lookup)));
  auto address = [&](const orc::SymbolStringPtr& name) -> void* {
    if (!name) return nullptr;
    auto it = found.find(name);
    if (it == found.end()) throw JitError("jit: symbol " + std::string(*name) + " missing");
    return it->second.getAddress().toPtr<void*>();
  };

  std::vector<std::shared_ptr<const Kernel>> kernels;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    KernelEntries e;
    e.apply = reinterpret_cast<decltype(e.apply)>(address(names[i][0]));
    e.tile = reinterpret_cast<decltype(e.tile)>(address(names[i][1]));
    e.diffs = reinterpret_cast<decltype(e.diffs)>(address(names[i][2]));
    Engine::Core* c = core.get();
    c->live_kernels.fetch_add(1);
    kernels.emplace_back(new Kernel(*programs[i], parts[i], level, e, code), [c](const Kernel* k) {
      c->live_kernels.fetch_sub(1);
      delete k;
    });
  }
  core->compiled.fetch_add(programs.size());
  core->modules.fetch_add(1);
  core->compile_ns.fetch_add(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count()));
  return kernels;
}

}  // namespace

Engine::Engine(const EngineOptions& options) : core_(std::make_shared<Core>()) {
  initialise_llvm();
  core_->options = options;
  auto jtmb = check("detecting the host CPU", orc::JITTargetMachineBuilder::detectHost());
  core_->cpu = jtmb.getCPU();
  core_->features = jtmb.getFeatures().getString();
  core_->pool = std::make_shared<TargetMachinePool>(jtmb);
  if (options.codegen_opt_level < 0 || options.codegen_opt_level > 3)
    throw std::invalid_argument("jit: codegen_opt_level " + std::to_string(options.codegen_opt_level) +
                                " is not 0..3");
  const llvm::TargetOptions target_options = jtmb.getOptions();
  auto pool = core_->pool;
  // Compiles run on the calling threads (in-place dispatch): the callers are already
  // parallel, and LLJIT's default with concurrent compilation starts a thread per module.
  // (A sub-allocating MapperJITLinkMemoryManager measured no faster than the default.)
  auto process = check("creating the JIT process control",
                       orc::SelfExecutorProcessControl::Create(
                           nullptr, std::make_unique<orc::InPlaceTaskDispatcher>()));
  // No platform: kernels have no static initialisers.
  core_->jit = check("creating the JIT",
                     orc::LLJITBuilder()
                         .setExecutorProcessControl(std::move(process))
                         .setJITTargetMachineBuilder(jtmb)
                         .setSupportConcurrentCompilation(true)
                         .setPlatformSetUp(orc::setUpInactivePlatform)
                         .setCompileFunctionCreator(
                             [pool, target_options](orc::JITTargetMachineBuilder)
                                 -> llvm::Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
                               return std::make_unique<PooledCompiler>(pool, target_options);
                             })
                         .create());
  if (options.ir_opt_level > 0) {
    const int level = options.ir_opt_level;
    core_->jit->getIRTransformLayer().setTransform(
        [pool, level](orc::ThreadSafeModule tsm, orc::MaterializationResponsibility&)
            -> llvm::Expected<orc::ThreadSafeModule> {
          llvm::Error error = llvm::Error::success();
          tsm.withModuleDo([&](llvm::Module& m) {
            const int codegen = module_codegen_level(m);
            auto tm = pool->take(codegen);
            if (!tm) {
              error = tm.takeError();
              return;
            }
            run_ir_pipeline(m, tm->get(), level);
            pool->give(codegen, std::move(*tm));
          });
          if (error) return error;
          return tsm;
        });
  }
}

Engine::~Engine() {
  // The ring of recent kernels holds their code, and the code holds the core: a cycle that
  // would keep the whole LLJIT alive after the engine. Drop the ring (outside the lock); the
  // core then goes with the last kernel a caller still holds. Found by LeakSanitizer.
  if (!core_) return;
  std::vector<std::shared_ptr<const Kernel>> recent;
  {
    std::lock_guard lock(core_->cache_mu);
    recent.swap(core_->recent);
  }
}

std::shared_ptr<const Kernel> Engine::compile(const mixer::Program& program, unsigned parts, int codegen_level) {
  return compile_batch(std::span<const mixer::Program>(&program, 1), parts, codegen_level).front();
}

std::vector<std::shared_ptr<const Kernel>> Engine::compile_batch(std::span<const mixer::Program> programs,
                                                                 unsigned parts, int codegen_level) {
  parts &= parts_all;
  if (parts == 0) throw std::invalid_argument("jit: compile needs at least one part");
  if (codegen_level < 0) codegen_level = core_->options.codegen_opt_level;
  if (codegen_level > 3)
    throw std::invalid_argument("jit: codegen level " + std::to_string(codegen_level) + " is not 0..3");
  int batch_level = codegen_level;
  for (const mixer::Program& p : programs) mixer::validate(p, mixer::ValidationLimits{1 << 16});
  std::vector<std::shared_ptr<const Kernel>> result(programs.size());
  std::vector<const mixer::Program*> missing;
  std::vector<unsigned> missing_parts;
  std::vector<std::vector<std::size_t>> wanted_by;  // result slots for each missing program
  {
    std::lock_guard lock(core_->cache_mu);
    std::unordered_map<std::uint64_t, std::size_t> pending;
    for (std::size_t i = 0; i < programs.size(); ++i) {
      const std::uint64_t key = programs[i].hash();
      auto it = core_->cache.find(key);
      // A live kernel with fewer parts or lower-level code is not reused, but the new
      // one gets its parts and level too so that it can replace it in the cache.
      unsigned want = parts;
      if (it != core_->cache.end() && it->second.program == programs[i]) {
        if (auto k = it->second.kernel.lock()) {
          if ((k->parts() & parts) == parts && k->codegen_level() >= codegen_level) {
            result[i] = std::move(k);
            core_->hits.fetch_add(1);
            continue;
          }
          want |= k->parts();
          batch_level = std::max(batch_level, k->codegen_level());
        }
      }
      auto [p, inserted] = pending.try_emplace(key, missing.size());
      if (inserted || *missing[p->second] != programs[i]) {
        if (!inserted) p->second = missing.size();
        missing.push_back(&programs[i]);
        missing_parts.push_back(want);
        wanted_by.emplace_back();
      }
      wanted_by[p->second].push_back(i);
    }
  }
  std::vector<std::shared_ptr<const Kernel>> kernels;
  if (!missing.empty()) kernels = compile_new(core_, missing, missing_parts, batch_level);
  std::vector<std::shared_ptr<const Kernel>> evicted;  // released after unlocking
  std::lock_guard lock(core_->cache_mu);
  for (std::size_t m = 0; m < missing.size(); ++m) {
    for (std::size_t slot : wanted_by[m]) result[slot] = kernels[m];
    core_->cache[missing[m]->hash()] = Core::CacheEntry{*missing[m], kernels[m]};
  }
  // Forget released kernels once the table has doubled since the last sweep.
  if (core_->cache.size() >= core_->sweep_at) {
    std::erase_if(core_->cache, [](const auto& e) { return e.second.kernel.expired(); });
    core_->sweep_at = std::max<std::size_t>(1024, 2 * core_->cache.size());
  }
  const std::size_t keep = core_->options.keep_recent;
  if (keep > 0) {
    if (core_->recent.size() < keep) core_->recent.resize(keep);
    for (const auto& k : result) {
      evicted.push_back(std::exchange(core_->recent[core_->recent_next], k));
      core_->recent_next = (core_->recent_next + 1) % keep;
    }
  }
  return result;
}

EngineStats Engine::stats() const {
  EngineStats s;
  s.compiled_programs = core_->compiled.load();
  s.modules = core_->modules.load();
  s.cache_hits = core_->hits.load();
  s.live_kernels = core_->live_kernels.load();
  s.live_modules = core_->live_modules.load();
  s.compile_seconds = static_cast<double>(core_->compile_ns.load()) * 1e-9;
  return s;
}

const EngineOptions& Engine::options() const { return core_->options; }

std::string Engine::target_description() const { return core_->cpu + " " + core_->features; }

}  // namespace mixforge::jit
