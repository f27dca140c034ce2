"""Makes the packages of the checkout importable (nothing is installed into site-packages)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
