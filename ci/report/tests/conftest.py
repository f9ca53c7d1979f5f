"""Puts ci/report/ on the path, so the tests import the report's modules as its entry does."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
