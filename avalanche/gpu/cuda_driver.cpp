#include "avalanche/gpu/cuda_driver.hpp"

#include <dlfcn.h>

#include <vector>

namespace mixforge::avalanche::cuda {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = ModuleHandle*;
using CUfunction = FunctionHandle*;
using CUstream = void*;
// cuda.h values (CUdevice_attribute, CUjit_option).
constexpr int attribute_cc_major = 75, attribute_cc_minor = 76;
constexpr int jit_info_log = 3, jit_info_log_size = 4, jit_error_log = 5, jit_error_log_size = 6;
constexpr CUresult no_device = 100;

}  // namespace

struct Driver::Api {
  void* library = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(std::size_t*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext*);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc)(DevicePtr*, std::size_t);
  CUresult (*cuMemFree)(DevicePtr);
  CUresult (*cuMemsetD8)(DevicePtr, unsigned char, std::size_t);
  CUresult (*cuMemcpyDtoH)(void*, DevicePtr, std::size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**);
  CUresult (*cuGetErrorString)(CUresult, const char**);

  ~Api() {
    if (library) dlclose(library);
  }
  template <class F>
  void bind(F*& fn, const char* symbol) {
    fn = reinterpret_cast<F*>(dlsym(library, symbol));
    if (!fn) throw CudaError(std::string("cuda: libcuda has no ") + symbol + " (driver too old?)");
  }
  void check(CUresult r, const char* call) const {
    if (r == 0) return;
    const char* message = nullptr;
    if (cuGetErrorString) cuGetErrorString(r, &message);
    throw CudaError(std::string("cuda: ") + call + " failed: " + (message ? message : "error " + std::to_string(r)));
  }
};

// The calling thread may be any pool thread: push the context for the call, pop it after.
class Driver::Current {
 public:
  explicit Current(const Driver& d) : api_(*d.api_) {
    if (api_.cuCtxPushCurrent(d.context_) != 0) throw CudaError("cuda: cannot make the context current");
  }
  ~Current() {
    void* popped = nullptr;
    api_.cuCtxPopCurrent(&popped);
  }
  Current(const Current&) = delete;
  Current& operator=(const Current&) = delete;

 private:
  const Api& api_;
};

Driver::Driver(int ordinal) : api_(std::make_unique<Api>()), ordinal_(ordinal) {
  api_->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api_->library) throw CudaError(std::string("cuda: no CUDA driver (libcuda.so.1): ") + dlerror());
  Api& a = *api_;
  a.bind(a.cuGetErrorString, "cuGetErrorString");
  a.bind(a.cuInit, "cuInit");
  a.bind(a.cuDriverGetVersion, "cuDriverGetVersion");
  a.bind(a.cuDeviceGetCount, "cuDeviceGetCount");
  a.bind(a.cuDeviceGet, "cuDeviceGet");
  a.bind(a.cuDeviceGetName, "cuDeviceGetName");
  a.bind(a.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  a.bind(a.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  a.bind(a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  a.bind(a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  a.bind(a.cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  a.bind(a.cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  a.bind(a.cuCtxSynchronize, "cuCtxSynchronize");
  a.bind(a.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  a.bind(a.cuModuleUnload, "cuModuleUnload");
  a.bind(a.cuModuleGetFunction, "cuModuleGetFunction");
  a.bind(a.cuMemAlloc, "cuMemAlloc_v2");
  a.bind(a.cuMemFree, "cuMemFree_v2");
  a.bind(a.cuMemsetD8, "cuMemsetD8_v2");
  a.bind(a.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  a.bind(a.cuLaunchKernel, "cuLaunchKernel");

  const CUresult init = a.cuInit(0);
  if (init == no_device) throw CudaError("cuda: the driver found no CUDA device");
  a.check(init, "cuInit");
  int count = 0;
  a.check(a.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    throw CudaError("cuda: no device " + std::to_string(ordinal) + " (" + std::to_string(count) + " found)");
  CUdevice dev = 0;
  a.check(a.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  char name[256] = {};
  a.check(a.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
  device_.name = name;
  a.check(a.cuDeviceGetAttribute(&device_.major, attribute_cc_major, dev), "cuDeviceGetAttribute");
  a.check(a.cuDeviceGetAttribute(&device_.minor, attribute_cc_minor, dev), "cuDeviceGetAttribute");
  std::size_t memory = 0;
  a.check(a.cuDeviceTotalMem(&memory, dev), "cuDeviceTotalMem");
  device_.memory = memory;
  a.check(a.cuDriverGetVersion(&device_.driver_version), "cuDriverGetVersion");
  a.check(a.cuDevicePrimaryCtxRetain(&context_, dev), "cuDevicePrimaryCtxRetain");
}

Driver::~Driver() {
  if (context_) api_->cuDevicePrimaryCtxRelease(ordinal_);
}

const DeviceInfo& Driver::device() const { return device_; }

ModuleHandle* Driver::load_ptx(const std::string& ptx) {
  Current current(*this);
  std::vector<char> error_log(8192, '\0'), info_log(8192, '\0');
  int options[] = {jit_error_log, jit_error_log_size, jit_info_log, jit_info_log_size};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(error_log.size() - 1), info_log.data(),
                    reinterpret_cast<void*>(info_log.size() - 1)};
  CUmodule module = nullptr;
  const CUresult r = api_->cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values);
  if (r != 0) {
    const char* message = nullptr;
    api_->cuGetErrorString(r, &message);
    throw CudaError(std::string("cuda: cuModuleLoadDataEx failed: ") + (message ? message : "?") +
                    "; the driver's log: " + error_log.data());
  }
  return module;
}

void Driver::unload(ModuleHandle* module) {
  Current current(*this);
  api_->check(api_->cuModuleUnload(module), "cuModuleUnload");
}

FunctionHandle* Driver::function(ModuleHandle* module, const char* name) {
  Current current(*this);
  CUfunction f = nullptr;
  api_->check(api_->cuModuleGetFunction(&f, module, name), "cuModuleGetFunction");
  return f;
}

DevicePtr Driver::allocate(std::size_t bytes) {
  Current current(*this);
  DevicePtr p = 0;
  api_->check(api_->cuMemAlloc(&p, bytes), "cuMemAlloc");
  return p;
}

void Driver::release(DevicePtr ptr) noexcept {
  if (api_->cuCtxPushCurrent(context_) != 0) return;
  api_->cuMemFree(ptr);
  void* popped = nullptr;
  api_->cuCtxPopCurrent(&popped);
}

void Driver::zero(DevicePtr ptr, std::size_t bytes) {
  Current current(*this);
  api_->check(api_->cuMemsetD8(ptr, 0, bytes), "cuMemsetD8");
}

void Driver::copy_to_host(void* host, DevicePtr ptr, std::size_t bytes) {
  Current current(*this);
  api_->check(api_->cuMemcpyDtoH(host, ptr, bytes), "cuMemcpyDtoH");
}

void Driver::launch(FunctionHandle* f, unsigned grid_x, unsigned grid_y, unsigned block_x, void** args) {
  Current current(*this);
  api_->check(api_->cuLaunchKernel(f, grid_x, grid_y, 1, block_x, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
  api_->check(api_->cuCtxSynchronize(), "cuCtxSynchronize (the kernel)");
}

}  // namespace mixforge::avalanche::cuda
