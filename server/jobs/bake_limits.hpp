#pragma once
// The daemon's bake policy (server/jobs/bake_jobs.hpp), on its own so that the daemon's options
// (server/daemon.hpp) do not pull in the job machinery.
#include <cstddef>
#include <cstdint>

namespace mixforge::server {

struct BakeLimits {
  std::size_t max_running = 1;
  std::size_t max_queued = 4;
  std::size_t max_kept = 100;  // finished bakes kept; the oldest go first
  unsigned bake_threads = 0;   // 0: hardware threads - 1 (at least 1)
  std::uint32_t max_spp = 65536;
  std::uint32_t max_bounces = 16;
  std::uint32_t max_atlas_size = 2048;  // lightmap edge in texels
};

}  // namespace mixforge::server
