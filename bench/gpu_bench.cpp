// bench_gpu [--out DIR]: the GPU evaluator against the CPU, measured in the same run.
//   1. exact lowbias32 (2^32 inputs) with each exact kernel (jit::CountKernelOptions:
//      direct, tiles of 8, 16, 32): GPU time including PTX compile and module load (the
//      first call) and warm (later calls), the warm times as ratios to the direct kernel's
//      in the same run; the default kernel's against the CPU's JIT exact count;
//   2. batched exact scoring: random 32-bit 5-step programs per second, batches of 16;
//   3. sampled 2^24 inputs of lowbias32, GPU against CPU.
// Counts are compared for equality on every measured call. Writes DIR/gpu.txt (default
// bench/results/gpu). Without a CUDA GPU it says why and exits 0 without writing.
//
// bench_gpu --ptx [--ir-passes PIPELINE] [--out DIR] needs no GPU: for each kernel option it emits the counting
// kernels of lowbias32 and of a random 64-bit program, one module per kernel as the
// evaluator loads them, assembles them with ptxas -v
// (PATH or /usr/local/cuda/bin) and writes DIR/ptx_kernels.txt: emit and ptxas times
// (medians of 3), registers, stack, spills, and the PTX instructions, shuffles and
// popcounts of each kernel's text, and the SASS instructions ptxas made of it (static
// counts, not per input). --ir-passes runs an LLVM pipeline on the IR first
// (jit::PtxOptions::ir_passes; bench/ptx_passes.sh compares several).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "avalanche/gpu/cuda_driver.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/gpu/gpu_counter.hpp"
#include "jit/count_kernels.hpp"
#include "evolver/search/random_program.hpp"
#include "evolver/search/rng.hpp"
#include "evolver/search/run_config.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using Clock = std::chrono::steady_clock;

namespace {
double seconds(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class F>
double timed(F&& f) {
  const auto t = Clock::now();
  f();
  return seconds(t);
}

// `runs` timings of f, fastest first (this runs on shared machines: report medians).
template <class F>
std::vector<double> sorted_times(int runs, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < runs; ++k) t.push_back(timed(f));
  std::sort(t.begin(), t.end());
  return t;
}

std::string ptxas_path() {
  std::istringstream dirs(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "ptxas"))
      return (std::filesystem::path(dir) / "ptxas").string();
  return std::filesystem::exists("/usr/local/cuda/bin/ptxas") ? "/usr/local/cuda/bin/ptxas" : "";
}

// stdout and stderr of a shell command (paths here are ours: no quoting needed).
std::string command_output(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    status = -1;
    return out;
  }
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  status = pclose(pipe);
  return out;
}

struct PtxText {
  long instructions = 0, shuffles = 0, popcounts = 0;
};

// Static counts over one .entry's body: lines ending in ';' that are not directives.
PtxText count_entry(const std::string& ptx, const std::string& entry) {
  PtxText c;
  const std::size_t from = ptx.find(".entry " + entry + "(");
  if (from == std::string::npos) return c;
  const std::size_t to = ptx.find(".entry ", from + 1);
  std::istringstream lines(ptx.substr(from, to == std::string::npos ? std::string::npos : to - from));
  for (std::string l; std::getline(lines, l);) {
    const std::size_t a = l.find_first_not_of(" \t");
    if (a == std::string::npos || l.back() != ';' || l[a] == '.' || l.compare(a, 2, "//") == 0) continue;
    ++c.instructions;
    if (l.find("shfl.") != std::string::npos) ++c.shuffles;
    if (l.find("popc.") != std::string::npos) ++c.popcounts;
  }
  return c;
}

// ptxas -v prints, per entry, "Compiling entry function 'NAME'", then the stack and
// spills line, then "Used N registers": the two lines after the name, condensed.
std::string ptxas_summary(const std::string& log, const std::string& entry) {
  const std::size_t at = log.find("'" + entry + "'");
  if (at == std::string::npos) return "not in ptxas output";
  std::istringstream lines(log.substr(at));
  std::string skip, frame, used;
  std::getline(lines, skip);
  std::getline(lines, skip);  // "Function properties for ..."
  std::getline(lines, frame);
  std::getline(lines, used);
  auto trim = [](std::string t) {
    const std::size_t k = t.find("Used ");
    if (k != std::string::npos) t = t.substr(k);
    const std::size_t b = t.find_first_not_of(" \t");
    return b == std::string::npos ? t : t.substr(b);
  };
  return trim(used) + "; " + trim(frame);
}

// Bytes of machine code (SASS, 16 per instruction on sm_90) ptxas made for one entry: the
// size of its .text.ENTRY section in the cubin, as readelf lists it; -1 without readelf.
long sass_bytes(const std::filesystem::path& cubin, const std::string& entry) {
  int status = 0;
  const std::string sections = command_output("readelf -SW " + cubin.string(), status);
  if (status != 0) return -1;
  std::istringstream lines(sections);
  for (std::string l; std::getline(lines, l);) {
    // "  [Nr] Name Type Address Off Size ES Flg Lk Inf Al"
    std::istringstream fields(l.substr(l.find(']') == std::string::npos ? 0 : l.find(']') + 1));
    std::string name, type, address, offset, size;
    if (!(fields >> name >> type >> address >> offset >> size) || name != ".text." + entry) continue;
    return std::stol(size, nullptr, 16);
  }
  return -1;
}

// `count` random 5-step programs of a width, as a search starts them.
std::vector<mixer::Program> random_programs(int width, std::size_t count, std::uint64_t seed) {
  evolver::ProgramShape shape;
  shape.width = width;
  shape.min_steps = 5;
  shape.max_steps = 5;
  shape.kinds = evolver::usable_kinds(evolver::RunConfig{}.kinds(), width);
  evolver::Rng rng(seed, 0);
  std::vector<mixer::Program> programs;
  while (programs.size() < count) programs.push_back(evolver::random_program(shape, rng));
  return programs;
}

int ptx_report(const std::filesystem::path& out, const std::string& ir_passes) {
  const std::string ptxas = ptxas_path();
  const mixer::Program lowbias =
      mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  const mixer::Program wide = random_programs(64, 1, 11).front();
  std::ostringstream r;
  r << "counting kernels for sm_90 (PTX 8.0); IR passes before code generation: "
    << (ir_passes.empty() ? std::string("none") : ir_passes) << "; ptxas: " << (ptxas.empty() ? "not found" : ptxas)
    << "\n";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "mixforge-bench-ptx";
  std::filesystem::create_directories(dir);
  for (const auto& [name, program] : {std::pair<std::string, mixer::Program>{"lowbias32", lowbias},
                                      std::pair<std::string, mixer::Program>{"random 64-bit", wide}}) {
    r << name << ": " << mixer::format_short(program) << "\n";
    for (unsigned tile : {0u, 8u, 16u, 32u}) {
      r << "  " << (tile == 0 ? std::string("direct") : "tile " + std::to_string(tile)) << "\n";
      // One module per kernel, as the evaluator loads them.
      for (const jit::CountKernels which : {jit::CountKernels::exact, jit::CountKernels::sampled}) {
        const bool exact = which == jit::CountKernels::exact;
        if (exact && program.width() > 32) continue;
        const char* entry = exact ? jit::count_kernel_exact : jit::count_kernel_sampled;
        const std::vector<mixer::Program> one{program};
        std::string ptx;
        const double emit_s =
            sorted_times(3, [&] { ptx = jit::emit_count_ptx(one, {"sm_90", "+ptx80", "", ir_passes}, {tile}, which); })[1];
        const std::filesystem::path file = dir / "k.ptx";
        std::ofstream(file) << ptx;
        std::string log = "ptxas not run";
        int status = 0;
        double ptxas_s = 0;
        if (!ptxas.empty())
          ptxas_s = sorted_times(3, [&] {
            log = command_output(ptxas + " -arch=sm_90 -v -o " + (dir / "k.cubin").string() + " " + file.string(),
                                 status);
          })[1];
        const PtxText c = count_entry(ptx, entry);
        char line[256];
        std::snprintf(line, sizeof line,
                      "    %-16s emit %4.0f ms, ptxas %4.0f ms%s; %5ld PTX instructions, %4ld shfl, %3ld popc; ", entry,
                      emit_s * 1e3, ptxas_s * 1e3, status == 0 ? "" : " (ptxas FAILED)", c.instructions, c.shuffles,
                      c.popcounts);
        r << line << (ptxas.empty() ? std::string("not assembled") : ptxas_summary(log, entry));
        if (!ptxas.empty() && status == 0) {
          const long sass = sass_bytes(dir / "k.cubin", entry);
          r << "; SASS " << (sass < 0 ? std::string("unknown (readelf found no .text." + std::string(entry) + ")")
                                      : std::to_string(sass / 16) + " instructions");
        }
        r << "\n";
      }
    }
  }
  std::filesystem::remove_all(dir);
  std::fputs(r.str().c_str(), stdout);
  std::filesystem::create_directories(out);
  std::ofstream(out / "ptx_kernels.txt") << r.str();
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path out = "bench/results/gpu";
  bool ptx_only = false;
  std::string ir_passes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (arg == "--ptx") {
      ptx_only = true;
    } else if (arg == "--ir-passes" && i + 1 < argc) {
      ir_passes = argv[++i];
    } else {
      std::fprintf(stderr, "bench_gpu: unknown argument \"%s\" (usage: bench_gpu [--ptx [--ir-passes PIPELINE]] [--out DIR])\n", arg.c_str());
      return 2;
    }
  }
  if (!ir_passes.empty() && !ptx_only) {
    // The GPU evaluator builds its kernels without IR passes; timing them with passes
    // would need that option plumbed through GpuCounter.
    std::fprintf(stderr, "bench_gpu: --ir-passes works with --ptx only\n");
    return 2;
  }
  if (ptx_only) return ptx_report(out, ir_passes);
  std::unique_ptr<avalanche::GpuCounter> gpu;
  try {
    gpu = avalanche::GpuCounter::open();
  } catch (const avalanche::cuda::CudaError& e) {
    std::printf("bench_gpu: skipped, no CUDA GPU here: %s\n", e.what());
    return 0;
  }
  const auto cpu = avalanche::Evaluator::with_own_engine();
  std::ostringstream r;
  const avalanche::GpuDeviceInfo& d = gpu->device();
  r << "device: " << d.name << ", compute " << d.compute_major << "." << d.compute_minor << ", PTX target "
    << d.architecture << ", driver " << d.driver_version << "\n";
  const mixer::Program lowbias =
      mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  bool equal = true;

  // 1. exact lowbias32, each kernel option on a counter of its own (so the first call
  // compiles); the default's figures head the section.
  avalanche::AvalancheCounts g, c;
  const double cpu_s = timed([&] { c = cpu->counts_exact(lowbias); });
  struct ExactTiming {
    unsigned tile;
    double first_s;
    std::vector<double> warm;  // 5 calls, fastest first
  };
  std::vector<ExactTiming> timings;
  for (unsigned tile : {0u, 8u, 16u, 32u}) {
    const auto counter = avalanche::GpuCounter::open({tile});
    const double first_s = timed([&] { g = counter->counts_exact(lowbias); });
    equal = equal && g.flips == c.flips;
    timings.push_back({tile, first_s, sorted_times(5, [&] { g = counter->counts_exact(lowbias); })});
    equal = equal && g.flips == c.flips;
  }
  char line[256];
  for (const ExactTiming& t : timings)
    if (t.tile == jit::CountKernelOptions{}.tile) {
      std::snprintf(line, sizeof line,
                    "exact lowbias32 (default kernel, tile %u): GPU first call %.1f ms (compile + load + count), "
                    "warm median %.1f ms; CPU (JIT, this machine) %.0f ms -> %.0fx\n",
                    t.tile, t.first_s * 1e3, t.warm[2] * 1e3, cpu_s * 1e3, cpu_s / t.warm[2]);
      r << line;
    }
  const double direct_ms = timings.front().warm[2] * 1e3;
  for (const ExactTiming& t : timings) {
    const double ms = t.warm[2] * 1e3;
    std::snprintf(line, sizeof line,
                  "  exact kernel %-9s first call %.1f ms, warm median %.1f ms (min %.1f) -> %.2fx the direct kernel\n",
                  t.tile == 0 ? "direct:" : ("tile " + std::to_string(t.tile) + ":").c_str(), t.first_s * 1e3, ms,
                  t.warm[0] * 1e3, direct_ms / ms);
    r << line;
  }

  // 2. batched exact scoring of random programs.
  const std::vector<mixer::Program> batch = random_programs(32, 16, 7);
  std::vector<avalanche::AvalancheCounts> gb;
  const double batch_first = timed([&] { gb = gpu->counts_exact_batch(batch); });
  const double batch_warm = timed([&] { gb = gpu->counts_exact_batch(batch); });
  equal = equal && gb[3].flips == cpu->counts_exact(batch[3]).flips;
  std::snprintf(line, sizeof line,
                "exact batches of 16 random 5-step programs: %.1f programs/s warm (%.2f s per batch; first batch "
                "%.2f s with compile)\n",
                16 / batch_warm, batch_warm, batch_first);
  r << line;

  // 3. sampled 2^24.
  const std::uint64_t n = std::uint64_t{1} << 24;
  gpu->counts_sampled(lowbias, 9, 0, n);  // compile and load
  const double gs = timed([&] { g = gpu->counts_sampled(lowbias, 9, 0, n); });
  const double cs = timed([&] { c = cpu->counts_sampled(lowbias, 9, 0, n); });
  equal = equal && g.flips == c.flips;
  std::snprintf(line, sizeof line, "sampled 2^24 lowbias32: GPU %.2f ms, CPU (one thread) %.1f ms -> %.0fx\n", gs * 1e3,
                cs * 1e3, cs / gs);
  r << line;
  r << "counts equal to the CPU's: " << (equal ? "yes" : "NO") << "\n";
  std::fputs(r.str().c_str(), stdout);
  std::filesystem::create_directories(out);
  std::ofstream(out / "gpu.txt") << r.str();
  return equal ? 0 : 1;
}
