// Metal Shading Language scalar and vector types for compiling exported MSL functions
// with clang on Linux (there is no Metal compiler for Linux). Apple's metal_stdlib
// declares its vectors the same way, as clang ext_vector_type, so arithmetic, shifts and
// wrap-around are clang's in both; only Metal's constructor syntax uint4(a, b, c, d) needs
// a macro, because ext vectors take brace initialisers in C++ mode.
#pragma once
#include <cstdint>

typedef unsigned int uint;
typedef unsigned long ulong;  // 64 bits on LP64 Linux, as in Metal
static_assert(sizeof(ulong) == 8, "Metal's ulong is 64-bit");
typedef uint uint4 __attribute__((ext_vector_type(4)));
#define uint4(...) (uint4{__VA_ARGS__})
