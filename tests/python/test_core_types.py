"""DataType table and Shape checks as seen from Python, and the error mapping."""

import numpy as np
import pytest

from onnx_light import _core


def test_data_type_table_is_complete_and_ordered():
    rows = _core.data_types()
    assert [r[0] for r in rows] == list(range(27))
    names = {r[1]: r[2] for r in rows}
    assert names["FLOAT"] == 32 and names["BFLOAT16"] == 16 and names["INT4"] == 4
    assert names["STRING"] == 0 and names["UNDEFINED"] == 0


@pytest.mark.parametrize(
    "name,np_dtype",
    [
        ("FLOAT", np.float32),
        ("DOUBLE", np.float64),
        ("FLOAT16", np.float16),
        ("INT8", np.int8),
        ("UINT8", np.uint8),
        ("INT16", np.int16),
        ("UINT16", np.uint16),
        ("INT32", np.int32),
        ("UINT32", np.uint32),
        ("INT64", np.int64),
        ("UINT64", np.uint64),
        ("BOOL", np.bool_),
        ("COMPLEX64", np.complex64),
        ("COMPLEX128", np.complex128),
    ],
)
def test_storage_bytes_agree_with_numpy_itemsize(name, np_dtype):
    value = next(r[0] for r in _core.data_types() if r[1] == name)
    assert _core.storage_bytes(value, 7) == 7 * np.dtype(np_dtype).itemsize


def test_storage_bytes_errors_are_value_errors():
    with pytest.raises(ValueError, match="unknown ONNX data type 99"):
        _core.storage_bytes(99, 1)
    with pytest.raises(ValueError, match="UNDEFINED"):
        _core.storage_bytes(0, 1)
    with pytest.raises(ValueError, match="negative element count"):
        _core.storage_bytes(1, -1)
    with pytest.raises(ValueError, match="overflows"):
        _core.storage_bytes(15, 2**63 - 1)


def test_shape_checks():
    assert _core.shape_num_elements([]) == 1
    assert _core.shape_num_elements([2, 0, 5]) == 0
    assert _core.shape_num_elements([3037000499, 3037000499]) == 3037000499**2
    with pytest.raises(ValueError, match="negative dimension -1 at axis 1"):
        _core.shape_num_elements([2, -1])
    with pytest.raises(ValueError, match="overflows int64"):
        _core.shape_num_elements([2**32, 2**31])
    with pytest.raises(ValueError, match="rank 17 exceeds the limit of 16"):
        _core.shape_num_elements([1] * 17, max_rank=16)
    with pytest.raises(TypeError):
        _core.shape_num_elements(["a"])
    # The process and the module are still usable after every error above.
    assert _core.shape_num_elements([4, 4], max_rank=16) == 16
