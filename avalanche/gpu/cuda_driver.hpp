#pragma once
// The CUDA driver API, loaded at run time (dlopen of libcuda.so.1), so mixforge builds and
// runs everywhere and uses a GPU only where a driver and a device exist. Only the calls
// the GPU evaluator needs; types are the driver's own ABI (cuda.h), declared here because
// no CUDA header is installed on the machines that build mixforge.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace mixforge::avalanche::cuda {

// A failed driver call, with the call's name and the driver's message.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using DevicePtr = std::uint64_t;  // CUdeviceptr
struct ModuleHandle;              // CUmod_st
struct FunctionHandle;            // CUfunc_st

struct DeviceInfo {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  std::uint64_t memory = 0;  // bytes
  int driver_version = 0;    // e.g. 13000
};

// One device's primary context. Thread-safe only under the caller's lock: the GPU
// evaluator serialises all use of one Driver.
class Driver {
 public:
  // Loads libcuda and opens device `ordinal`. Throws CudaError saying what is missing
  // (no libcuda, no device, a driver error).
  explicit Driver(int ordinal = 0);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const DeviceInfo& device() const;

  // Calls below make the context current on the calling thread for their duration.
  // PTX text -> module (the driver JIT-compiles it); the error names the driver's log.
  ModuleHandle* load_ptx(const std::string& ptx);
  void unload(ModuleHandle* module);
  FunctionHandle* function(ModuleHandle* module, const char* name);
  DevicePtr allocate(std::size_t bytes);
  void release(DevicePtr ptr) noexcept;
  void zero(DevicePtr ptr, std::size_t bytes);
  void copy_to_host(void* host, DevicePtr ptr, std::size_t bytes);
  // args: pointers to each kernel parameter, as cuLaunchKernel takes them. Synchronous.
  void launch(FunctionHandle* f, unsigned grid_x, unsigned grid_y, unsigned block_x, void** args);

 private:
  struct Api;
  class Current;  // makes the context current for one scope
  std::unique_ptr<Api> api_;
  DeviceInfo device_;
  void* context_ = nullptr;
  int ordinal_ = 0;
};

}  // namespace mixforge::avalanche::cuda
