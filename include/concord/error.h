// concord/error.h — the typed error hierarchy.
//
// Every error concord raises derives from concord::Error. Messages start with
// "[op]", name the shapes, dtypes and device involved, and say what to do.
// An op that throws leaves its inputs untouched.
//
//   try { concord::matmul(a, b); }
//   catch (const concord::ShapeError& e) { std::cerr << e.what(); }
#pragma once

#include <stdexcept>
#include <string>

namespace concord {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Shapes that do not fit together, bad dims, sizes that overflow.
class ShapeError : public Error { public: using Error::Error; };
// A dtype that the op does not define (e.g. sqrt of an integer tensor with an
// integer output requested, solve on int32).
class DtypeError : public Error { public: using Error::Error; };
// The device cannot hold or compute a dtype and the dtype policy is strict.
class UnsupportedDtypeError : public Error { public: using Error::Error; };
// The device has no kernel for the op and the fallback policy is strict.
class NotImplementedError : public Error { public: using Error::Error; };
// Device not found, driver or kernel-build failure, bad device string.
class DeviceError : public Error { public: using Error::Error; };
// An allocation failed; the message names the size and the device.
class OutOfMemoryError : public Error { public: using Error::Error; };
// A numerical failure raised by the throwing linalg variants (singular, not PD).
class LinAlgError : public Error { public: using Error::Error; };
// Bad argument values that are not shapes or dtypes (negative step, bad p).
class ValueError : public Error { public: using Error::Error; };
// A file that cannot be read or written, or is not a valid file of its
// format (concord/io.h: truncated, wrong magic, a corrupt header).
class FileError : public Error { public: using Error::Error; };

}  // namespace concord
