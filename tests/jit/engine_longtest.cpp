// The memory check at full length: 100,000 compile/release cycles (minutes).
#include "memory_check.hpp"

namespace mixforge::jit {
namespace {

TEST(EngineLong, MemoryStaysFlatOver100kCompileReleaseCycles) {
  expect_flat_memory(1000, 100000, 64 * 1024);
}

}  // namespace
}  // namespace mixforge::jit
