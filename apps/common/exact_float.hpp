// Float arithmetic with one rounding per operation, for the model code the
// apps compile for the host and (with nvcc) for the device. nvcc would
// otherwise fuse a * b + c into an FMA on the GPU, and the cross-engine checks
// compare positions, boxes and codes bit for bit; the host side is compiled
// with -ffp-contract=off (each app's CMakeLists.txt).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define APPS_HD __host__ __device__ __forceinline__
#else
#define APPS_HD inline
#endif

namespace apps {

APPS_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
APPS_HD float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
APPS_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
APPS_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
/// The bit pattern of a float.
APPS_HD std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

}  // namespace apps
