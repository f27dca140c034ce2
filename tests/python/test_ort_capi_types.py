"""The names of ORT's capi module beyond sessions and values, side by side with ONNX
Runtime's own (the oracle in .venv): its enums (members, values, how they print),
OrtDevice, OrtMemoryInfo (and InferenceSession.get_input/output_memory_infos), OrtArenaCfg,
OrtValueVector; every name of ORT's ``onnxruntime.capi.onnxruntime_pybind11_state`` exists in
the drop-in's (modules that import them at module level load), and the ones onnx-light
lacks raise ORT's NotImplemented naming the feature when used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import onnxruntime.capi._pybind_state as C
import pytest

import onnx_light.ort_compat as light
from onnx_light.onnx import TensorProto, helper
from onnx_light.ort_compat import _capi_types

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("enum", _capi_types.ENUMS, ids=lambda e: e.__name__)
def test_enums_have_ors_members_and_values(enum):
    theirs = getattr(C, enum.__name__)
    assert {k: int(v) for k, v in theirs.__members__.items()} == {
        k: int(v) for k, v in enum.__members__.items()
    }
    for name in enum.__members__:
        assert str(getattr(enum, name)) == str(getattr(theirs, name))
        assert int(getattr(enum, name)) == int(getattr(theirs, name))


def test_ort_device():
    for kind in ("cpu", "gpu", "cuda", "dml", "webgpu", "fpga", "npu", "cann", "default_memory"):
        assert getattr(light.OrtDevice, kind)() == getattr(C.OrtDevice, kind)(), kind
    args = (C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 4318, 2)
    ours, theirs = light.OrtDevice(*args), C.OrtDevice(*args)
    for m in ("device_type", "mem_type", "vendor_id", "device_id"):
        assert getattr(ours, m)() == getattr(theirs, m)(), m


def memory_fields(info) -> tuple:
    return (
        info.name,
        int(info.allocator_type),
        info.device_id,
        int(info.mem_type),
        int(info.device_mem_type),
        info.device_vendor_id,
    )


def test_ort_memory_info():
    for args in [
        ("Cpu", "ORT_ARENA_ALLOCATOR", 0, "DEFAULT"),
        ("Cpu", "ORT_DEVICE_ALLOCATOR", 1, "CPU_INPUT"),
        ("Cuda", "ORT_DEVICE_ALLOCATOR", 1, "DEFAULT"),
        ("CudaPinned", "ORT_DEVICE_ALLOCATOR", 0, "CPU_OUTPUT"),
        ("DML", "ORT_ARENA_ALLOCATOR", 2, "DEFAULT"),
        ("Hip", "ORT_ARENA_ALLOCATOR", 0, "DEFAULT"),
        ("OpenVINO_GPU", "ORT_ARENA_ALLOCATOR", 0, "DEFAULT"),
        ("WebGPU_Buffer", "ORT_ARENA_ALLOCATOR", 0, "DEFAULT"),
    ]:
        name, alloc, device, mem = args
        ours = light.OrtMemoryInfo(
            name, light.OrtAllocatorType[alloc], device, light.OrtMemType[mem]
        )
        theirs = C.OrtMemoryInfo(
            name, C.OrtAllocatorType.__members__[alloc], device, C.OrtMemType.__members__[mem]
        )
        assert memory_fields(ours) == memory_fields(theirs)
    ours = light.OrtMemoryInfo.create_v2(
        "Cpu",
        light.OrtMemoryInfoDeviceType.CPU,
        0,
        0,
        light.OrtDeviceMemoryType.DEFAULT,
        0,
        light.OrtAllocatorType.ORT_DEVICE_ALLOCATOR,
    )
    theirs = C.OrtMemoryInfo.create_v2(
        "Cpu",
        C.OrtMemoryInfoDeviceType.CPU,
        0,
        0,
        C.OrtDeviceMemoryType.DEFAULT,
        0,
        C.OrtAllocatorType.ORT_DEVICE_ALLOCATOR,
    )
    assert memory_fields(ours) == memory_fields(theirs)
    for name in ("CpuPinned", "Nowhere"):
        with pytest.raises(RuntimeError, match="Try CreateMemoryInfo_V2"):
            C.OrtMemoryInfo(name, C.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, C.OrtMemType.DEFAULT)
        with pytest.raises(RuntimeError, match="Try CreateMemoryInfo_V2"):
            light.OrtMemoryInfo(
                name, light.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, light.OrtMemType.DEFAULT
            )


def test_session_memory_infos(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    path = tmp_path / "add.onnx"
    path.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    )
    ours = light.InferenceSession(str(path))
    theirs = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for method in ("get_input_memory_infos", "get_output_memory_infos"):
        assert [memory_fields(i) for i in getattr(ours, method)()] == [
            memory_fields(i) for i in getattr(theirs, method)()
        ], method


def test_arena_cfg():
    for args in [(0, -1, -1, -1), (1 << 20, 1, 4096, 128)]:
        ours, theirs = light.OrtArenaCfg(*args), C.OrtArenaCfg(*args)
        for key in light.OrtArenaCfg._KEYS:
            assert getattr(ours, key) == getattr(theirs, key), key
    config = {"max_mem": 1 << 20, "arena_extend_strategy": 1, "initial_chunk_size_bytes": 512}
    ours, theirs = light.OrtArenaCfg(config), C.OrtArenaCfg(config)
    for key in light.OrtArenaCfg._KEYS:
        assert getattr(ours, key) == getattr(theirs, key), key


def test_ortvalue_vector():
    arrays = [np.ones(3, np.float32), np.array([True, False]), np.arange(4, dtype=np.int64)]
    ours, theirs = light.OrtValueVector(), C.OrtValueVector()
    ours.reserve(3)
    theirs.reserve(3)
    for a in arrays:
        ours.push_back(light.OrtValue.ortvalue_from_numpy(a))
        theirs.push_back(ort.OrtValue.ortvalue_from_numpy(a)._ortvalue)
    assert len(ours) == len(theirs) == 3
    assert [ours.element_type_at(i) for i in range(3)] == [
        theirs.element_type_at(i) for i in range(3)
    ]
    assert ours.bool_tensor_indices() == theirs.bool_tensor_indices()
    np.testing.assert_array_equal(ours[2].numpy(), arrays[2])
    with pytest.raises(light.NotImplemented, match="DLPack"):
        ours.to_dlpacks()


def test_every_ort_capi_name_imports_through_the_drop_in():
    names = sorted(
        n
        for n in dir(C)
        if not n.startswith("_")
        and n not in ("os", "platform", "warnings", "opkernel", "schemadef")
    )
    code = (
        f"import sys; sys.path.insert(0, {str(REPO / 'python')!r})\n"
        "import onnx_light.ort_compat as c; c.install()\n"
        "import onnxruntime.capi.onnxruntime_pybind11_state as state\n"
        "import onnxruntime.capi._pybind_state as state2\n"
        f"names = {names!r}\n"
        "missing = [n for n in names if not hasattr(state, n) or not hasattr(state2, n)]\n"
        "print(missing)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert eval(done.stdout) == []  # (ORT's own imports os, platform, warnings and its
    # submodules opkernel/schemadef, which are no API, are left out above)


@pytest.mark.parametrize("name", sorted(light.NOT_SUPPORTED))
def test_unsupported_names_exist_and_say_why_when_used(name):
    obj = getattr(light, name)
    with pytest.raises(light.NotImplemented, match="is not supported by onnx-light"):
        obj()


def test_run_with_ortvaluevector_as_orts(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["m"]), helper.make_node("Neg", ["m"], ["n"])],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in ("a", "b")],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in ("m", "n")],
    )
    path = tmp_path / "mul.onnx"
    path.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    )
    a, b = np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)
    got = {}
    for rt, vec in ((light, light.OrtValueVector), (ort, C.OrtValueVector)):
        sess = rt.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        wrap = (
            (lambda x: rt.OrtValue.ortvalue_from_numpy(x))
            if rt is light
            else (lambda x: ort.OrtValue.ortvalue_from_numpy(x)._ortvalue)
        )
        feeds, fetches = vec(), vec()
        feeds.push_back(wrap(a))
        feeds.push_back(wrap(b))
        cpu = (
            rt.OrtDevice(rt.OrtDevice.cpu(), rt.OrtDevice.default_memory(), 0, 0)
            if rt is light
            else (C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0, 0))
        )
        target = sess if rt is light else sess._sess
        target.run_with_ortvaluevector(
            rt.RunOptions(), ["a", "b"], feeds, ["n", "m"], fetches, [cpu, cpu]
        )
        got[rt] = [np.asarray(fetches[i].numpy()).tolist() for i in range(len(fetches))]
    assert got[light] == got[ort] == [[-4.0, -10.0, -18.0], [4.0, 10.0, 18.0]]


def test_check_and_normalize_provider_args_as_orts(recwarn):
    from onnxruntime.capi.onnxruntime_inference_collection import (
        check_and_normalize_provider_args as theirs,
    )

    from onnx_light.ort_compat._session import check_and_normalize_provider_args as ours

    available = ["CPUExecutionProvider"]
    cases = [
        (None, None),
        (["CPUExecutionProvider"], None),
        ([("CPUExecutionProvider", {"a": 1})], None),
        (["CPUExecutionProvider", "CPUExecutionProvider"], None),
        (["CUDAExecutionProvider", "CPUExecutionProvider"], [{"device_id": 0}, {}]),
        ("CPUExecutionProvider", None),
        (["CPUExecutionProvider"], [{}, {}]),
        ([("CPUExecutionProvider", {})], [{}]),
        ([("CPUExecutionProvider",)], None),
        (["CPUExecutionProvider"], [[]]),
        (["CPUExecutionProvider"], {"x": 1}),
    ]
    for providers, options in cases:
        answers = []
        for fn in (ours, theirs):
            recwarn.clear()
            try:
                answers.append((fn(providers, options, available), None))
            except ValueError as e:
                answers.append((None, str(e)))
            answers[-1] += ([str(w.message) for w in recwarn],)
        assert answers[0] == answers[1], (providers, options)
