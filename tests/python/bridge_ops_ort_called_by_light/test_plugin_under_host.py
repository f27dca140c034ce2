"""onnx-light's ORT plugin under onnx-light's standalone host: the same case table as the
real-ORT suite (bridge_cases.py), through onnx_light_ort.CustomOpSession, all four types.
The host stays generic: it does not link the plugin (checked on the ELF file) and does not
import onnxruntime (checked by conftest.py after every test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bridge_cases as bc  # noqa: E402

from onnx_light_ort import CustomOpSession, bridge_library_path  # noqa: E402


def host_runner(model):
    if not bc.PLUGIN.exists():
        pytest.fail(f"{bc.PLUGIN} is missing: build with scripts/build.sh")
    session = CustomOpSession(bc.PLUGIN, model)
    return session.run, session.close


def test_case_table_under_the_host(record_property):
    errors = {}
    bc.run_table(host_runner, errors)
    for (op, t), e in sorted(errors.items()):
        record_property(f"{op}/{t}", e)
        print(f"host: {op} {t}: largest error {e:.3f} ULP")


def test_recovery_after_type_and_rank_errors_under_the_host():
    bc.run_recovery(host_runner, type_error=(TypeError,), rank_error=(ValueError,))


def test_default_alpha_under_the_host():
    bc.default_alpha_case(host_runner)


def test_wrong_alpha_type_fails_kernel_creation_with_a_status():
    m = bc.wrong_alpha_model()
    with CustomOpSession(bc.PLUGIN, m) as s:
        # The plugin's ORT_INVALID_ARGUMENT status arrives as a ValueError.
        with pytest.raises(ValueError, match="attribute 'alpha' must be a float"):
            s.run(np.ones(2, np.float32))
        with pytest.raises(ValueError, match="must be a float"):  # and again, no crash
            s.run(np.ones(2, np.float32))


def test_the_host_does_not_link_the_plugin():
    needed = subprocess.run(
        ["readelf", "-d", str(bridge_library_path())], capture_output=True, text=True, check=True
    ).stdout
    assert "bridge_ops_light_called_by_ort" not in needed
    assert "onnxruntime" not in needed
