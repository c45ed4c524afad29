// radix — errors. Every failure the library reports is a radix::error
// (README.md, "Semantics", Errors): bad arguments, too little memory, a device error.
#pragma once
#include <stdexcept>
#include <string>

namespace radix {

/// Base of every exception the library throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument was wrong (bit range, sizes that do not match, bad option).
/// Thrown before anything is written: the caller's data is untouched.
class invalid_argument : public error {
 public:
  using error::error;
};

/// Scratch memory could not be obtained, or the caller's workspace is too small.
class out_of_memory : public error {
 public:
  using error::error;
};

/// The requested engine is not compiled in, or no device is present.
class engine_unavailable : public error {
 public:
  using error::error;
};

/// A GPU / OpenCL runtime call failed; the message names the call.
class device_error : public error {
 public:
  using error::error;
};

}  // namespace radix
