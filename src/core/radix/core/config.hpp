// Marks functions usable from host and device code (CUDA) alike.
#pragma once
#if defined(__CUDACC__)
#define RADIX_HD __host__ __device__ __forceinline__
#else
#define RADIX_HD inline
#endif
