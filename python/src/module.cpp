// The Python extension of radix: a thin, type-erased layer over the library's
// one-request entry points (radix::run for host memory, radix::cuda::sort for
// device memory). Arrays, dtypes, streams and allocators are the Python
// side's business (stable_radix/_arrays.py); here are only pointers, sizes
// and key descriptions, so that one compiled function serves every dtype.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <string>

#include "radix/radix.hpp"
#ifdef RADIX_PYTHON_HAS_CUDA
#include <cuda_runtime.h>

#include "radix/cuda.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// The key of a request from the dtype's kind letter (NumPy's: 'u', 'i',
/// 'f'; 'b' for bfloat16, which shares float16's width) and its width.
radix::key_desc key_of(const std::string& kind, int bytes) {
  if (kind == "u" || kind == "i") {
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
      throw radix::invalid_argument("integer keys are 1, 2, 4, 8 or 16 bytes, not " + std::to_string(bytes));
    return radix::key_desc{kind == "u" ? radix::key_kind::unsigned_int : radix::key_kind::signed_int,
                           std::uint8_t(bytes), 0};
  }
  if (kind == "b") {
    if (bytes != 2) throw radix::invalid_argument("bfloat16 keys are 2 bytes");
    return radix::key_desc_of<radix::bfloat16>();
  }
  if (kind == "f") {
    switch (bytes) {
      case 2: return radix::key_desc_of<radix::float16>();
      case 4: return radix::key_desc_of<float>();
      case 8: return radix::key_desc_of<double>();
    }
    throw radix::invalid_argument("float keys are 2, 4 or 8 bytes, not " + std::to_string(bytes));
  }
  if (kind == "V") return radix::byte_key_desc(std::size_t(bytes));  // memcmp order
  throw radix::invalid_argument("unknown key kind '" + kind + "'");
}

radix::engine engine_of(const std::string& e) {
  if (e == "auto") return radix::engine::automatic;
  if (e == "cpu") return radix::engine::cpu;
  if (e == "cuda") return radix::engine::cuda;
  if (e == "opencl") return radix::engine::opencl;
  throw radix::invalid_argument("engine must be 'auto', 'cpu', 'cuda' or 'opencl', not '" + e + "'");
}

radix::operation op_of(const std::string& op) {
  if (op == "keys") return radix::operation::keys;
  if (op == "pairs") return radix::operation::pairs;
  if (op == "argsort") return radix::operation::argsort;
  throw radix::invalid_argument("unknown operation '" + op + "'");
}

/// Everything a request needs besides its pointers, as Python passes it.
/// (Defaults: Python sets only the fields that differ, a call costing ~0.1 us each.)
struct request_args {
  std::string op = "keys", kind = "u";
  int key_bytes = 4;
  std::uint64_t n = 0;
  std::uintptr_t keys = 0, values = 0;
  std::size_t value_bytes = 0;
  std::uintptr_t indices = 0;
  std::uintptr_t sorted_keys = 0;  ///< argsort: the keys in sorted order too; keys: the output of a sort out of place (0: none)
  int index_bytes = 0;
  bool descending = false, total_order = false;
  int begin_bit = 0, end_bit = -1;
  std::string engine = "auto";
  unsigned threads = 0;
  /// Rows of a matrix: segment_count segments of segment_length each (0: one array).
  std::uint64_t segment_count = 0, segment_length = 0;
};

radix::sort_request make(const request_args& a) {
  radix::sort_request r;
  r.op = op_of(a.op);
  r.key = key_of(a.kind, a.key_bytes);
  r.n = a.n;
  r.keys = reinterpret_cast<void*>(a.keys);
  r.values = reinterpret_cast<void*>(a.values);
  r.value_bytes = a.value_bytes;
  r.indices = reinterpret_cast<void*>(a.indices);
  r.index_bytes = std::uint8_t(a.index_bytes);
  r.sorted_keys = reinterpret_cast<void*>(a.sorted_keys);
  r.opts.direction = a.descending ? radix::order::descending : radix::order::ascending;
  r.opts.floats = a.total_order ? radix::float_order::total : radix::float_order::numeric;
  r.opts.begin_bit = a.begin_bit;
  r.opts.end_bit = a.end_bit;
  r.opts.use = engine_of(a.engine);
  r.opts.threads = a.threads;
  if (a.segment_length) r.segs = radix::segments::uniform(a.segment_count, a.segment_length);
  return r;
}

#ifdef RADIX_PYTHON_HAS_CUDA
/// Makes `device` current for the call and restores the caller's device after.
class device_scope {
 public:
  explicit device_scope(int device) : device_(device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (device != previous_) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~device_scope() {
    if (device_ != previous_) cudaSetDevice(previous_);
  }
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw radix::device_error(std::string(what) + ": " + cudaGetErrorString(e));
  }

 private:
  int device_ = 0, previous_ = 0;
};
#endif

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "radix: stable radix sorts (the compiled part of stable_radix)";

  // The library's errors as Python's: bad arguments are ValueError, missing
  // engines RuntimeError, memory MemoryError (the Python side raises
  // TypeError for dtypes it cannot map before anything reaches here).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const radix::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const radix::out_of_memory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const radix::error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  nb::class_<request_args>(m, "Request")
      .def(nb::init<>())
      .def_rw("op", &request_args::op)
      .def_rw("kind", &request_args::kind)
      .def_rw("key_bytes", &request_args::key_bytes)
      .def_rw("n", &request_args::n)
      .def_rw("keys", &request_args::keys)
      .def_rw("values", &request_args::values)
      .def_rw("value_bytes", &request_args::value_bytes)
      .def_rw("indices", &request_args::indices)
      .def_rw("index_bytes", &request_args::index_bytes)
      .def_rw("sorted_keys", &request_args::sorted_keys)
      .def_rw("descending", &request_args::descending)
      .def_rw("total_order", &request_args::total_order)
      .def_rw("begin_bit", &request_args::begin_bit)
      .def_rw("end_bit", &request_args::end_bit)
      .def_rw("engine", &request_args::engine)
      .def_rw("threads", &request_args::threads)
      .def_rw("segment_count", &request_args::segment_count)
      .def_rw("segment_length", &request_args::segment_length);

  m.def(
      "host_sort",
      [](const request_args& a) {
        const radix::sort_request r = make(a);
        nb::gil_scoped_release unlocked;  // other Python threads run while the engine's threads sort
        radix::run(r);
      },
      "request"_a, "Sorts host memory as the request says (radix::run).");

  m.def(
      "host_sort_records",
      [](std::uintptr_t data, std::size_t record_bytes, std::uint64_t count, std::size_t key_offset,
         const std::string& kind, int key_bytes, bool big_endian, const request_args& a) {
        radix::record_key key;
        key.offset = key_offset;
        key.type = key_of(kind, key_bytes);
        key.big_endian = big_endian;
        radix::options o = make(a).opts;
        nb::gil_scoped_release unlocked;
        radix::sort_records(reinterpret_cast<void*>(data), record_bytes, count, key, o);
      },
      "data"_a, "record_bytes"_a, "count"_a, "key_offset"_a, "kind"_a, "key_bytes"_a, "big_endian"_a, "request"_a,
      "Sorts fixed-size host records by a key inside them (radix::sort_records).");

  m.def("engine_available", [](const std::string& e) { return radix::engine_available(engine_of(e)); });

  // A host array's first byte, through the buffer protocol (about a tenth of
  // the time NumPy's __array_interface__ dict takes to build); objects that
  // export no buffer (or not this way) answer through that dict instead.
  m.def(
      "address",
      [](nb::handle a) -> std::uintptr_t {
        Py_buffer view;
        if (PyObject_GetBuffer(a.ptr(), &view, PyBUF_STRIDES) == 0) {
          const auto p = reinterpret_cast<std::uintptr_t>(view.buf);
          PyBuffer_Release(&view);
          return p;
        }
        PyErr_Clear();
        return nb::cast<std::uintptr_t>(a.attr("__array_interface__")["data"][0]);
      },
      "array"_a, "The address of a host array's first element.");

  m.def("release_scratch_cache", &radix::release_scratch_cache);

#ifdef RADIX_PYTHON_HAS_CUDA
  m.attr("has_cuda") = true;
  m.def(
      "cuda_sort",
      [](const request_args& a, int device, std::uintptr_t workspace, std::size_t workspace_bytes,
         std::uintptr_t stream) {
        const radix::sort_request r = make(a);
        nb::gil_scoped_release unlocked;
        device_scope scope(device);
        radix::cuda::sort(r, reinterpret_cast<void*>(workspace), workspace_bytes,
                          reinterpret_cast<cudaStream_t>(stream));
      },
      "request"_a, "device"_a, "workspace"_a, "workspace_bytes"_a, "stream"_a,
      "Enqueues the sort of device memory on `stream`; no host synchronisation, no allocation.");
  m.def(
      "cuda_sort_without_workspace",
      [](const request_args& a, int device, std::uintptr_t stream) {
        const radix::sort_request r = make(a);
        nb::gil_scoped_release unlocked;
        device_scope scope(device);
        const std::size_t need = radix::cuda::workspace_bytes(r);
        if (need == 0) radix::cuda::sort(r, nullptr, 0, reinterpret_cast<cudaStream_t>(stream));
        return need;
      },
      "request"_a, "device"_a, "stream"_a,
      "Enqueues the sort on `stream` where it needs no workspace (small inputs) and returns 0; "
      "otherwise enqueues nothing and returns the workspace bytes cuda_sort needs.");
  m.def("cuda_engine_info", [](int device) {
    device_scope scope(device);
    return radix::cuda::engine_info();
  });
#else
  m.attr("has_cuda") = false;
#endif
}
