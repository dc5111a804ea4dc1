// The CPU shim's acl/acl.h: the ACL runtime calls the exported host program makes, on malloc'd
// memory. A TEST FIXTURE: see ../cubecheck_shim_core.h. A launch's failure (a call the reference
// model refused, a copy out of range) is reported by the stream synchronisation, as a device
// error would be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../cubecheck_shim_core.h"

using aclError = int;
inline constexpr aclError ACL_SUCCESS = 0;
inline constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;
inline constexpr aclError ACL_ERROR_RT_FAILURE = 500000;
using aclrtStream = void*;
enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY
};
enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
};

inline aclError aclInit(const char*) {
  return ACL_SUCCESS;
}
inline aclError aclFinalize() {
  return ACL_SUCCESS;
}
inline aclError aclrtSetDevice(int32_t) {
  return ACL_SUCCESS;
}
inline aclError aclrtResetDevice(int32_t) {
  return ACL_SUCCESS;
}
inline aclError aclrtCreateStream(aclrtStream* stream) {
  static int token = 0;
  *stream = &token;
  return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream) {
  return ACL_SUCCESS;
}

/// "Device" memory: malloc'd, filled with a pattern (a device holds whatever was there).
inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
  *p = std::malloc(size == 0 ? 1 : size);
  if (*p == nullptr) return ACL_ERROR_BAD_ALLOC;
  std::memset(*p, 0xA5, size);
  cubecheck_shim::core().allocations[reinterpret_cast<std::uintptr_t>(*p)] = size;
  return ACL_SUCCESS;
}
inline aclError aclrtFree(void* p) {
  cubecheck_shim::core().allocations.erase(reinterpret_cast<std::uintptr_t>(p));
  std::free(p);
  return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** p, size_t size) {
  *p = std::malloc(size == 0 ? 1 : size);
  return *p == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* p) {
  std::free(p);
  return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                            aclrtMemcpyKind) {
  if (count > destMax) return ACL_ERROR_RT_FAILURE;
  std::memcpy(dst, src, count);
  return ACL_SUCCESS;
}

/// The launch ran synchronously; its failure, if any, is reported here (and on stderr).
inline aclError aclrtSynchronizeStream(aclrtStream) {
  const std::string& error = cubecheck_shim::core().error;
  if (error.empty()) return ACL_SUCCESS;
  std::fprintf(stderr, "ascendc shim: launch %u: %s\n", cubecheck_shim::core().launches,
               error.c_str());
  return ACL_ERROR_RT_FAILURE;
}
inline aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t) {
  return aclrtSynchronizeStream(stream);
}
