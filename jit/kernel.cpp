#include "jit/kernel.hpp"

#include <stdexcept>
#include <string>

namespace mixforge::jit {

Kernel::Kernel(mixer::Program program, unsigned parts, int codegen_level, const KernelEntries& entries,
               std::shared_ptr<const void> code)
    : program_(std::move(program)),
      parts_(parts),
      codegen_level_(codegen_level),
      entries_(entries),
      code_(std::move(code)) {}

Kernel::~Kernel() = default;

static void missing(const char* what) {
  throw std::logic_error(std::string("jit kernel compiled without its ") + what +
                         " entry point (request it in Engine::compile's parts)");
}

void Kernel::apply(const std::uint64_t* in, std::uint64_t* out, std::size_t n) const {
  if (!entries_.apply) missing("apply");
  entries_.apply(in, out, n);
}

void Kernel::hash_tile(std::uint32_t* out, std::uint32_t base, unsigned shift,
                       std::size_t vectors) const {
  if (width() > 32)
    throw std::invalid_argument("hash_tile needs width <= 32, the program has width " +
                                std::to_string(width()));
  if (shift > 31) throw std::invalid_argument("hash_tile: shift " + std::to_string(shift) + " > 31");
  if (!entries_.tile) missing("tile");
  entries_.tile(out, base, shift, vectors);
}

void Kernel::diffs(const void* in, void* out, std::size_t vectors) const {
  if (!entries_.diffs) missing("diffs");
  entries_.diffs(in, out, vectors);
}

}  // namespace mixforge::jit
