"""``install()``: ``import onnxruntime`` (and the ``onnxruntime.capi`` modules programs reach
into) resolve to onnx-light's drop-in in this process, so a program written for ONNX Runtime
runs unmodified (``python -m onnx_light.ort_compat SCRIPT`` calls it first); ``import
onnxruntime_genai`` gives onnx_light.genai (docs/genai.md)."""

from __future__ import annotations

import sys
import types
from typing import Any

# The modules install() provides; any other onnxruntime.* import fails with a message
# saying so (the _Refuser below) instead of finding a real onnxruntime's file.
_PROVIDED = (
    "onnxruntime",
    "onnxruntime.capi",
    "onnxruntime.capi._pybind_state",
    "onnxruntime.capi.onnxruntime_pybind11_state",
    "onnxruntime.capi.onnxruntime_inference_collection",
    "onnxruntime.capi.build_and_package_info",
    "onnxruntime.backend",
    "onnxruntime.backend.backend",
    "onnxruntime.backend.backend_rep",
    "onnxruntime.transformers",
    "onnxruntime.transformers.io_binding_helper",
    "onnxruntime.transformers.fusion_options",
    "onnxruntime.transformers.optimizer",
    "onnxruntime.transformers.onnx_model",
    "onnxruntime.transformers.onnx_model_bert",
)


class _Refuser:
    """Fails imports of onnxruntime submodules the drop-in does not provide, by name (a
    meta path finder: find_spec is all sys.meta_path asks of one; importlib.abc is left
    out, its import costs more than the rest of this package's). It also answers
    importlib.metadata for the distribution "onnxruntime" (find_distributions), as an
    installed ORT would: programs check ``importlib.metadata.version("onnxruntime")``
    before they import it (Hugging Face Optimum does)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname.startswith("onnxruntime.") and fullname not in _PROVIDED:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: onnx-light's ONNX Runtime drop-in provides "
                f"{', '.join(_PROVIDED)} only (docs/ort_drop_in.md)",
                name=fullname,
            )
        return None

    def find_distributions(self, context: Any = None) -> Any:
        name = getattr(context, "name", None)
        if installed() and (name is None or _normalized(name) == "onnxruntime"):
            return iter([_distribution()])
        return iter([])


def _normalized(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _distribution() -> Any:
    """The "onnxruntime" distribution the drop-in stands for: its name and ORT's API version,
    its files onnx_light's (importlib.metadata.Distribution)."""
    import importlib.metadata
    from pathlib import Path

    import onnx_light.ort_compat as compat

    class _Drop(importlib.metadata.Distribution):
        def read_text(self, filename: str) -> str | None:
            if filename == "METADATA":
                return (
                    "Metadata-Version: 2.1\nName: onnxruntime\n"
                    f"Version: {compat.__version__}\n"
                    "Summary: onnx-light's drop-in for ONNX Runtime (onnx_light.ort_compat)\n"
                )
            return None

        def locate_file(self, path: Any) -> Path:
            return Path(compat.__file__).parent / str(path)

    return _Drop()


_REFUSER = _Refuser()


def _module(
    name: str, names: dict[str, Any], package: bool = False, source: Any = None
) -> types.ModuleType:
    """A stand-in module with what the import system gives a real one: ``__spec__`` (so
    ``importlib.util.find_spec`` answers), ``__file__`` (the onnx_light module providing it,
    `source`), ``__package__`` and, for a package, ``__path__``."""
    import importlib.machinery

    import onnx_light.ort_compat as compat

    module = types.ModuleType(name, f"onnx-light's stand-in for {name} (onnx_light.ort_compat)")
    module.__dict__.update(names)
    origin = getattr(source or compat, "__file__", None)
    spec = importlib.machinery.ModuleSpec(name, None, origin=origin, is_package=package)
    if package:
        spec.submodule_search_locations = []
        module.__path__ = []  # a package: its submodules come from sys.modules
    spec.has_location = origin is not None
    module.__spec__ = spec
    module.__file__ = origin
    module.__package__ = name if package else name.rpartition(".")[0]
    return module


def installed() -> bool:
    """True when ``import onnxruntime`` gives onnx-light's drop-in in this process."""
    module = sys.modules.get("onnxruntime")
    return module is not None and getattr(module, "__onnx_light__", False)


def _package(
    name: str, children: dict[str, types.ModuleType], names: dict | None = None, source: Any = None
) -> types.ModuleType:
    """A stand-in package holding its stand-in submodules (by their last name part)."""
    members = {child.rpartition(".")[2]: module for child, module in children.items()}
    return _module(name, {**(names or {}), **members}, package=True, source=source)


def _capi_modules(compat: Any, public: dict) -> dict[str, types.ModuleType]:
    from onnx_light.ort_compat import _errors
    from onnx_light.ort_compat._session import check_and_normalize_provider_args

    state = dict(public)
    state.update({cls.__name__: cls for cls in _errors.ORT_EXCEPTIONS})
    pybind = _module("onnxruntime.capi.onnxruntime_pybind11_state", state)
    children = {
        "onnxruntime.capi.onnxruntime_pybind11_state": pybind,
        "onnxruntime.capi.onnxruntime_inference_collection": _module(
            "onnxruntime.capi.onnxruntime_inference_collection",
            {**public, "check_and_normalize_provider_args": check_and_normalize_provider_args},
        ),
        "onnxruntime.capi.build_and_package_info": _module(
            "onnxruntime.capi.build_and_package_info",
            {"package_name": "onnxruntime", "__version__": compat.__version__},
        ),
    }
    capi = _package("onnxruntime.capi", children, {"_pybind_state": pybind})
    return {"onnxruntime.capi": capi, "onnxruntime.capi._pybind_state": pybind, **children}


def _transformers_modules() -> dict[str, types.ModuleType]:
    from onnx_light.ort_compat import _transformers as tf

    contents = {
        "io_binding_helper": ("TypeHelper",),
        "fusion_options": ("FusionOptions", "AttentionMaskFormat", "AttentionOpType"),
        "optimizer": ("optimize_model",),
        "onnx_model": ("OnnxModel",),
        "onnx_model_bert": ("BertOnnxModel",),
    }
    children = {
        f"onnxruntime.transformers.{sub}": _module(
            f"onnxruntime.transformers.{sub}", {n: getattr(tf, n) for n in names}, source=tf
        )
        for sub, names in contents.items()
    }
    package = _package("onnxruntime.transformers", children, source=tf)
    return {"onnxruntime.transformers": package, **children}


def _backend_modules() -> dict[str, types.ModuleType]:
    from onnx_light.ort_compat import _backend as bk

    api = {
        n: getattr(bk, n)
        for n in ("OnnxRuntimeBackend", "is_compatible", "prepare", "run", "supports_device")
    }
    children = {
        "onnxruntime.backend.backend": _module("onnxruntime.backend.backend", api, source=bk),
        "onnxruntime.backend.backend_rep": _module(
            "onnxruntime.backend.backend_rep",
            {"OnnxRuntimeBackendRep": bk.OnnxRuntimeBackendRep},
            source=bk,
        ),
    }
    package = _package("onnxruntime.backend", children, api, source=bk)
    return {"onnxruntime.backend": package, **children}


def install() -> None:
    """Makes ``import onnxruntime`` and ``import onnxruntime.capi...`` (``_pybind_state``,
    ``onnxruntime_pybind11_state`` with ORT's exception classes,
    ``onnxruntime_inference_collection``, ``build_and_package_info``), ``onnxruntime.backend``
    and what ``onnxruntime.transformers`` programs import resolve to onnx-light in this
    process. Idempotent. RuntimeError when the real onnxruntime was imported first: objects
    made from it would mix with onnx-light's."""
    if installed():
        return
    real = [n for n in sys.modules if n == "onnxruntime" or n.startswith("onnxruntime.")]
    if real:
        raise RuntimeError(
            "onnxruntime was imported before onnx_light.ort_compat.install(): call install() "
            "first, or run the program with `python -m onnx_light.ort_compat SCRIPT`"
        )
    import onnx_light.ort_compat as compat

    public = {name: getattr(compat, name) for name in compat.__all__}
    for name in ("install", "installed", "uninstall"):
        public.pop(name)
    modules = {
        **_capi_modules(compat, public),
        **_transformers_modules(),
        **_backend_modules(),
    }
    top = _module("onnxruntime", public, package=True)
    top.__dict__.update(
        {
            "capi": modules["onnxruntime.capi"],
            "transformers": modules["onnxruntime.transformers"],
            "backend": modules["onnxruntime.backend"],
            "__version__": compat.__version__,
            "__onnx_light__": True,
            "__getattr__": compat.__getattr__,  # an unknown name: AttributeError
        }
    )
    # onnxruntime-genai's Python API too (onnx_light.genai), unless the real one was imported.
    if "onnxruntime_genai" not in sys.modules:
        import onnx_light.genai as genai

        sys.modules["onnxruntime_genai"] = genai
    sys.modules.update({"onnxruntime": top, **modules})
    assert set(sys.modules) >= set(_PROVIDED), "a provided module is not made"
    if _REFUSER not in sys.meta_path:
        sys.meta_path.insert(0, _REFUSER)


def uninstall() -> None:
    """Undoes :func:`install`: ``import onnxruntime`` finds the real package again (if one
    is installed). Modules that already imported onnxruntime keep what they got."""
    if not installed():
        return
    for name in _PROVIDED:
        sys.modules.pop(name, None)
    if getattr(sys.modules.get("onnxruntime_genai"), "__name__", "") == "onnx_light.genai":
        sys.modules.pop("onnxruntime_genai")
    if _REFUSER in sys.meta_path:
        sys.meta_path.remove(_REFUSER)
