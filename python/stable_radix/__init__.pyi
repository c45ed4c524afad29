# Type stubs of stable_radix (the implementation is stable_radix/_api.py).
from typing import Any, Literal, Sequence, Tuple, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

# Any array the package takes: NumPy, PyTorch, CuPy, JAX and Numba arrays,
# and objects with __dlpack__, __cuda_array_interface__ or the buffer protocol.
# Results have the input's type.
A = TypeVar("A")
Engine = Literal["auto", "cpu", "cuda", "opencl"]
FloatOrder = Literal["numeric", "total"]
IndexDType = Any  # int64 or int32: a NumPy dtype, its name, or a torch dtype

__version__: str
has_cuda: bool

@overload
def sort(a: A, axis: int | None = -1, *, engine: Engine = "auto", descending: bool = False, out: Any = None,
         float_order: FloatOrder = "numeric", begin_bit: int = 0, end_bit: int | None = None, threads: int = 0,
         return_indices: Literal[False] = False, index_dtype: IndexDType = np.int64) -> A: ...
@overload
def sort(a: A, axis: int | None = -1, *, engine: Engine = "auto", descending: bool = False, out: Any = None,
         float_order: FloatOrder = "numeric", begin_bit: int = 0, end_bit: int | None = None, threads: int = 0,
         return_indices: Literal[True], index_dtype: IndexDType = np.int64) -> Tuple[A, A]: ...
def argsort(a: A, axis: int | None = -1, *, index_dtype: IndexDType = np.int64, engine: Engine = "auto",
            descending: bool = False, out: Any = None, float_order: FloatOrder = "numeric", begin_bit: int = 0,
            end_bit: int | None = None, threads: int = 0) -> A: ...
def sort_by_key(keys: A, *values: Any, engine: Engine = "auto", descending: bool = False,
                out: Sequence[Any] | None = None, float_order: FloatOrder = "numeric", begin_bit: int = 0,
                end_bit: int | None = None, threads: int = 0) -> Tuple[Any, ...]: ...
def sort_records(a: npt.NDArray[np.void], key: str | Sequence[str], *, engine: Engine = "auto",
                 descending: bool = False, out: npt.NDArray[np.void] | None = None,
                 float_order: FloatOrder = "numeric", threads: int = 0) -> npt.NDArray[np.void]: ...
def engines() -> list[str]: ...
def release_scratch_cache() -> None: ...
