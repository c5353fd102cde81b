"""Shared test set-up: the helpers folder (fakes/, multimodel.py) on sys.path for every test folder."""
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
