#pragma once
// Native code for one mixing program, made by jit::Engine. Immutable and thread-safe;
// the machine code is released when the last shared_ptr to the kernel (and to every
// kernel compiled in the same batch) is dropped.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "mixer/program.hpp"

namespace mixforge::jit {

// Entry points a kernel can have. Each costs compile time, so callers ask for the ones
// they use (sampled scoring needs only diffs).
enum Parts : unsigned {
  parts_apply = 1,
  parts_tile = 2,   // widths <= 32 only; ignored for wider programs
  parts_diffs = 4,
  parts_all = 7,
};

struct KernelEntries {
  void (*apply)(const std::uint64_t*, std::uint64_t*, std::uint64_t) = nullptr;
  void (*tile)(std::uint32_t*, std::uint32_t, std::uint32_t, std::uint64_t) = nullptr;
  void (*diffs)(const void*, void*, std::uint64_t) = nullptr;
};

class Kernel {
 public:
  // Values per SIMD vector in tile and diffs: 16 (32-bit words, width <= 32) or 8
  // (64-bit words, width > 32).
  static constexpr int lanes_for_width(int width) { return width <= 32 ? 16 : 8; }

  Kernel(mixer::Program program, unsigned parts, int codegen_level, const KernelEntries& entries,
         std::shared_ptr<const void> code);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const mixer::Program& program() const { return program_; }
  int width() const { return program_.width(); }
  int lanes() const { return lanes_for_width(program_.width()); }
  unsigned parts() const { return parts_; }  // the Parts compiled
  int codegen_level() const { return codegen_level_; }  // 0..3

  // The entry points throw std::logic_error when their part was not compiled.

  // out[k] = f(in[k] & mask) for k < n; in and out may be the same array.
  void apply(const std::uint64_t* in, std::uint64_t* out, std::size_t n) const;

  // Width <= 32 only (throws std::invalid_argument otherwise). For v < vectors, l < 16:
  //   out[16 v + l] = f((base | ((16 v + l) << shift)) & mask)
  // The caller keeps (16 * vectors - 1) << shift below 2^32.
  void hash_tile(std::uint32_t* out, std::uint32_t base, unsigned shift,
                 std::size_t vectors) const;

  // Avalanche differences, lanes() inputs per vector. For v < vectors, l < lanes() and
  // every input bit i < width, with x = in[v * lanes() + l] (must be < 2^width):
  //   out[(v * width + i) * lanes() + l] = f(x) ^ f(x ^ 2^i)
  // Words are uint32_t when width <= 32, else uint64_t; out holds vectors * width * lanes().
  void diffs(const void* in, void* out, std::size_t vectors) const;

  // The raw entry points (null when not compiled), for hot loops.
  const KernelEntries& entries() const { return entries_; }

 private:
  mixer::Program program_;
  unsigned parts_;
  int codegen_level_;
  KernelEntries entries_;
  std::shared_ptr<const void> code_;  // owns the machine code (shared by a batch)
};

}  // namespace mixforge::jit
