#include "avalanche/batch_function.hpp"

#include "mixer/interpreter.hpp"

namespace mixforge::avalanche {

BatchFunction interpreted_function(const mixer::Program& program) {
  return [program](const std::uint64_t* in, std::uint64_t* out, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) out[k] = mixer::apply(program, in[k]);
  };
}

}  // namespace mixforge::avalanche
