"""ONNX Runtime's ``OrtValue`` and ``IOBinding`` over numpy arrays, without copies where ORT
makes none on the CPU.

An ``OrtValue`` holds a numpy array (or, for a sequence output, a list of them): made from a
numpy array it keeps that array (a non-contiguous one is made contiguous first, as ORT
does), ``numpy()`` returns the same memory, and a run reads it in place and returns its
outputs as new arrays wrapped without a copy. bfloat16 (ORT's route:
``ortvalue_from_numpy_with_onnx_type(uint16_array, 16)``) is a view as ml_dtypes' bfloat16.
Only the CPU exists here: any other device is a RuntimeError naming it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from onnx_light.onnx import _mapping
from onnx_light.ort_compat._errors import unsupported
from onnx_light.runtime import _type_name

if TYPE_CHECKING:  # pragma: no cover
    from onnx_light.ort_compat._session import InferenceSession

# ONNX element type code of each numpy dtype the runtime takes (ml_dtypes' included), made
# on first use (it imports ml_dtypes).
_CODE_OF_DTYPE: dict[np.dtype, int] = {}


def _codes() -> dict[np.dtype, int]:
    if not _CODE_OF_DTYPE:
        for code, info in _mapping.TENSOR_TYPE_MAP.items():
            _CODE_OF_DTYPE.setdefault(np.dtype(info.np_dtype), code)
        _CODE_OF_DTYPE[np.dtype(np.str_)] = 8  # any str/bytes/object array is tensor(string)
    return _CODE_OF_DTYPE


def _check_device(device_type: Any, device_id: Any = 0) -> None:
    if not isinstance(device_type, str) or device_type.lower() != "cpu":
        raise RuntimeError(
            f"OrtValue on device {device_type!r}: onnx-light runs on the CPU only "
            "(device_type must be 'cpu')"
        )
    if device_id != 0:
        raise RuntimeError(f"OrtValue on CPU device {device_id!r}: the CPU device id is 0")


def _element_code(array: np.ndarray) -> int:
    if array.dtype.kind in "OSU":
        return 8
    code = _codes().get(array.dtype)
    if code is None:
        raise RuntimeError(f"numpy dtype {array.dtype} has no ONNX element type")
    return code


def _dtype_of(element_type: Any) -> np.dtype:
    """A numpy dtype from an ONNX element type code or anything numpy reads as a dtype."""
    if isinstance(element_type, (int, np.integer)) and not isinstance(element_type, bool):
        info = _mapping.TENSOR_TYPE_MAP.get(int(element_type))
        if info is None or int(element_type) == 0:
            raise RuntimeError(f"{int(element_type)} is no ONNX element type")
        return np.dtype(info.np_dtype)
    try:
        dtype = np.dtype(element_type)
    except TypeError as exc:
        raise TypeError(f"element_type must be a numpy type or an ONNX type code: {exc}") from None
    if dtype.kind not in "OSU" and dtype not in _codes():
        raise RuntimeError(f"numpy dtype {dtype} has no ONNX element type")
    return dtype


def _shape_of(shape: Any) -> tuple[int, ...]:
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"shape {list(dims)} has a negative dimension")
    return dims


class OrtValue:
    """ORT's ``OrtValue``: a tensor (or a sequence of them) for ``run_with_ort_values`` and
    ``IOBinding``. Make one with :meth:`ortvalue_from_numpy`,
    :meth:`ortvalue_from_numpy_with_onnx_type` or :meth:`ortvalue_from_shape_and_type`."""

    __slots__ = ("_value",)

    def __init__(self, ortvalue: Any, numpy_obj: Any = None) -> None:
        if not isinstance(ortvalue, OrtValue):
            raise ValueError(
                "`Provided ortvalue` needs to be of type `onnx_light.ort_compat.OrtValue`: "
                "make one with OrtValue.ortvalue_from_numpy"
            )
        self._value = ortvalue._value

    @classmethod
    def _wrap(cls, value: Any) -> "OrtValue":
        obj = cls.__new__(cls)
        obj._value = value
        return obj

    # --- construction -------------------------------------------------------------------
    @staticmethod
    def ortvalue_from_numpy(
        numpy_obj: np.ndarray, device_type: str = "cpu", device_id: int = 0, vendor_id: int = -1
    ) -> "OrtValue":
        """Wraps the array without a copy (a non-contiguous one is copied to a contiguous
        one first, as ORT does). String arrays work too (ORT refuses them)."""
        _check_device(device_type, device_id)
        if not isinstance(numpy_obj, np.ndarray):
            raise RuntimeError(
                "Creation of OrtValues is supported from numpy arrays only, got "
                f"{type(numpy_obj).__name__}"
            )
        _element_code(numpy_obj)
        return OrtValue._wrap(np.ascontiguousarray(numpy_obj))

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data: np.ndarray, onnx_element_type: int) -> "OrtValue":
        """The array's memory read as ONNX element type ``onnx_element_type`` (same item size;
        e.g. uint16 data as bfloat16, 16), without a copy."""
        if not isinstance(data, np.ndarray):
            raise RuntimeError(f"data must be a numpy array, got {type(data).__name__}")
        dtype = _dtype_of(onnx_element_type)
        if dtype.itemsize != data.dtype.itemsize or dtype.kind in "OSU":
            raise RuntimeError(
                f"a {data.dtype} array cannot be read as {_type_name(int(onnx_element_type))}: "
                "the element sizes differ"
            )
        return OrtValue._wrap(np.ascontiguousarray(data).view(dtype))

    @staticmethod
    def ortvalue_from_shape_and_type(
        shape: Sequence[int],
        element_type: Any,
        device_type: str = "cpu",
        device_id: int = 0,
        vendor_id: int = -1,
    ) -> "OrtValue":
        """A new tensor of that shape and element type (a numpy type or an ONNX type code);
        its contents are undefined until written, as in ORT."""
        _check_device(device_type, device_id)
        dtype = _dtype_of(element_type)
        if dtype.kind in "OSU":
            return OrtValue._wrap(np.full(_shape_of(shape), "", dtype=object))
        return OrtValue._wrap(np.empty(_shape_of(shape), dtype=dtype))

    @staticmethod
    def from_dlpack(data: Any, is_bool_tensor: bool = False) -> "OrtValue":
        """A CPU DLPack tensor, without a copy (through ``numpy.from_dlpack``)."""
        array = np.from_dlpack(data)
        if is_bool_tensor and array.dtype == np.uint8:
            array = array.view(np.bool_)
        return OrtValue.ortvalue_from_numpy(array)

    # --- reading ------------------------------------------------------------------------
    def _tensor(self) -> np.ndarray:
        if not isinstance(self._value, np.ndarray):
            raise RuntimeError("this OrtValue holds a sequence of tensors, not a tensor")
        return self._value

    def numpy(self) -> Any:
        """The tensor as a numpy array sharing its memory (a list of arrays for a sequence;
        bfloat16 as ml_dtypes' bfloat16, which ORT cannot return)."""
        return self._value

    def shape(self) -> list[int]:
        return list(self._tensor().shape)

    def data_type(self) -> str:
        """``tensor(float)`` and so on; ``seq(tensor(float))`` for a sequence."""
        if isinstance(self._value, list):
            inner = _type_name(_element_code(self._value[0])) if self._value else "tensor(float)"
            return f"seq({inner})"
        return _type_name(_element_code(self._value))

    def element_type(self) -> int:
        """The ONNX element type code (1 for float), as ORT 1.30 returns it."""
        return _element_code(self._tensor())

    def device_name(self) -> str:
        return "cpu"

    def has_value(self) -> bool:
        return self._value is not None

    def is_tensor(self) -> bool:
        return isinstance(self._value, np.ndarray)

    def is_tensor_sequence(self) -> bool:
        return isinstance(self._value, list)

    def is_sparse_tensor(self) -> bool:
        return False

    def as_sparse_tensor(self) -> Any:
        raise unsupported("OrtValue.as_sparse_tensor", "sparse tensors do not exist at run time")

    @staticmethod
    def ort_value_from_sparse_tensor(sparse_tensor: Any) -> "OrtValue":
        raise unsupported(
            "OrtValue.ort_value_from_sparse_tensor", "sparse tensors do not exist at run time"
        )

    def data_ptr(self) -> int:
        return self._tensor().ctypes.data

    def tensor_size_in_bytes(self) -> int:
        return self._tensor().nbytes

    def update_inplace(self, np_arr: np.ndarray) -> None:
        """Writes ``np_arr``'s elements (as many as the tensor has) into the tensor's memory,
        converted to its element type."""
        dst = self._tensor()
        src = np.asarray(np_arr)
        if src.size != dst.size:
            raise RuntimeError(
                "The input size of numpy arrays does not match the size of the OrtValue."
            )
        np.copyto(dst, src.reshape(dst.shape), casting="unsafe")

    def to_dlpack(self) -> Any:
        return self._tensor().__dlpack__()

    def _get_c_value(self) -> "OrtValue":
        return self

    def __repr__(self) -> str:
        if isinstance(self._value, np.ndarray):
            return f"OrtValue({self.data_type()}, shape={self.shape()})"
        return f"OrtValue({self.data_type()})"


def _value_of(value: Any) -> Any:
    """The array (or list) a feed holds: an OrtValue's, or the value itself."""
    return value._value if isinstance(value, OrtValue) else value


def _buffer_array(ptr: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A numpy array over ``ptr`` (the caller's memory, kept alive by the caller)."""
    if not isinstance(ptr, int) or ptr <= 0:
        raise ValueError(f"buffer_ptr must be a non-null address, got {ptr!r}")
    if dtype.kind in "OSU":
        raise RuntimeError("strings cannot be bound through a raw buffer pointer")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    import ctypes  # here: only raw-pointer binding needs it

    raw = (ctypes.c_char * nbytes).from_address(ptr)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


class IOBinding:
    """ORT's ``IOBinding`` (``session.io_binding()``): inputs and outputs bound by name, then
    ``session.run_with_iobinding(binding)``. Inputs are read in place. An output bound to
    memory (an OrtValue, or ``buffer_ptr``) receives the result with one copy (ORT writes it
    there directly); an output bound without memory is the runtime's array, no copy."""

    def __init__(self, session: "InferenceSession") -> None:
        self._session = session
        self._input_names = {a.name for a in session.get_inputs()}
        self._output_names = {a.name for a in session.get_outputs()}
        self._inputs: dict[str, Any] = {}
        self._outputs: dict[str, np.ndarray | None] = {}
        self._results: list[OrtValue] = []

    def _input_name(self, name: str) -> str:
        if name not in self._input_names:
            raise RuntimeError(f"Failed to find NodeArg with name: {name} in the def list")
        return name

    def _output_name(self, name: str) -> str:
        if name not in self._output_names:
            raise RuntimeError(f"Failed to find NodeArg with name: {name} in the def list")
        return name

    def bind_cpu_input(self, name: str, arr_on_cpu: np.ndarray) -> None:
        """Binds a numpy array (kept, not copied) to input ``name``."""
        self._inputs[self._input_name(name)] = OrtValue.ortvalue_from_numpy(arr_on_cpu)._value

    def bind_input(
        self,
        name: str,
        device_type: str,
        device_id: int,
        element_type: Any,
        shape: Sequence[int],
        buffer_ptr: int,
    ) -> None:
        """Binds the caller's memory at ``buffer_ptr`` (read in place at each run; the
        caller keeps it alive) to input ``name``."""
        _check_device(device_type, device_id)
        self._inputs[self._input_name(name)] = _buffer_array(
            buffer_ptr, _dtype_of(element_type), _shape_of(shape)
        )

    def bind_ortvalue_input(self, name: str, ortvalue: OrtValue) -> None:
        if not isinstance(ortvalue, OrtValue):
            raise TypeError(f"ortvalue must be an OrtValue, got {type(ortvalue).__name__}")
        self._inputs[self._input_name(name)] = ortvalue._value

    def bind_output(
        self,
        name: str,
        device_type: str = "cpu",
        device_id: int = 0,
        element_type: Any = None,
        shape: Sequence[int] | None = None,
        buffer_ptr: int | None = None,
    ) -> None:
        """Binds output ``name``: to the caller's memory when ``buffer_ptr`` is given (with
        ``element_type`` and ``shape``), else to a new array each run."""
        _check_device(device_type, device_id)
        self._output_name(name)
        if buffer_ptr is None:
            self._outputs[name] = None
            return
        if element_type is None or shape is None:
            raise ValueError("bind_output with buffer_ptr needs element_type and shape")
        self._outputs[name] = _buffer_array(buffer_ptr, _dtype_of(element_type), _shape_of(shape))

    def bind_ortvalue_output(self, name: str, ortvalue: OrtValue) -> None:
        if not isinstance(ortvalue, OrtValue):
            raise TypeError(f"ortvalue must be an OrtValue, got {type(ortvalue).__name__}")
        self._outputs[self._output_name(name)] = ortvalue._tensor()

    def synchronize_inputs(self) -> None:
        """Nothing to do on the CPU."""

    def synchronize_outputs(self) -> None:
        """Nothing to do on the CPU."""

    def clear_binding_inputs(self) -> None:
        self._inputs.clear()

    def clear_binding_outputs(self) -> None:
        self._outputs.clear()
        self._results = []

    def get_outputs(self) -> list[OrtValue]:
        """The last run's outputs, in the order they were bound."""
        return list(self._results)

    get_outputs_as_ortvaluevector = get_outputs

    def copy_outputs_to_cpu(self) -> list[Any]:
        """Copies of the last run's outputs as numpy arrays."""
        return [
            [a.copy() for a in v._value] if isinstance(v._value, list) else v._value.copy()
            for v in self._results
        ]

    def _run(self, run_options: Any) -> None:
        names = list(self._outputs)
        if not names:
            raise RuntimeError("IOBinding has no output bound: bind_output() first")
        results = self._session._run_values(names, dict(self._inputs), run_options)
        wrapped = []
        for name, result in zip(names, results):
            target = self._outputs[name]
            if target is None:
                wrapped.append(OrtValue._wrap(result))
                continue
            if (
                not isinstance(result, np.ndarray)
                or result.shape != target.shape
                or result.dtype != target.dtype
            ):
                got = (
                    f"{result.dtype}{list(result.shape)}"
                    if isinstance(result, np.ndarray)
                    else "a sequence"
                )
                raise RuntimeError(
                    f"output '{name}' is {got}, the memory bound to it is "
                    f"{target.dtype}{list(target.shape)}"
                )
            np.copyto(target, result)
            wrapped.append(OrtValue._wrap(target))
        self._results = wrapped
