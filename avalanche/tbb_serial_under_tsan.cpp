// Built only into ThreadSanitizer builds (MIXFORGE_SANITIZE=thread), as a source of every
// executable that links mixforge_avalanche. Debian's libtbb is not instrumented: the
// hand-offs inside its scheduler are invisible to TSan, which would then report the data
// a TBB worker touches as racing with the thread that handed it over. Capping TBB at one
// thread for the whole process makes parallel_for / parallel_reduce run in the calling
// thread (no TBB workers exist), while the project's own threads (std::thread workers,
// Asio, the ranker) still run in parallel on every core and stay fully checked.
// A static object is the one way to cover every executable, test and daemon alike,
// before its first parallel loop; release builds never contain this file.
#include <oneapi/tbb/global_control.h>

namespace {
const oneapi::tbb::global_control tbb_one_thread_under_tsan(oneapi::tbb::global_control::max_allowed_parallelism, 1);
}  // namespace
