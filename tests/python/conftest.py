"""Makes the packages of the checkout importable (nothing is installed into site-packages)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
# The shared test helpers (_graphs.py, _models.py), for the suites in sub-folders too
# (tests/python/kernels/<family>/ mirrors src/onnx_light/kernels/<family>/).
sys.path.insert(0, str(Path(__file__).resolve().parent))
