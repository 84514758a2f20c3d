"""The kernel sets that corpus.measure and corpus.compare take (`--set NAME`): the one place that
maps a set's name to its manifest module (CORPUS, BY_NAME, get, SMS) and to its default results.

* corpus: corpus/manifest.py, the out-of-sample corpus the model developers have seen.
* holdout: corpus/holdout/manifest.py, the held-out set they have not.
* holdout2: corpus/holdout2/manifest.py, the second held-out set, which they have not seen either.
* holdout3: corpus/holdout3/manifest.py, the third held-out set, kept blind until the model is frozen.
* holdout4: corpus/holdout4/manifest.py, the fourth held-out set, blind likewise until it is measured.
* holdout5: corpus/holdout5/manifest.py, the fifth held-out set, blind likewise until it is measured.
* holdout6: corpus/holdout6/manifest.py, the sixth held-out set, blind likewise until it is measured.
* holdout7: corpus/holdout7/manifest.py, the seventh held-out set, blind likewise until it is measured.
* holdout8: corpus/holdout8/manifest.py, the eighth held-out set, blind likewise until it is measured.
* wild: corpus/wild/manifest.py, kernels as users keep and write them (whole programs, headers, templates,
  calls, recursion, printf and assert, 16-bit floats, dp4a, carry chains, rounding intrinsics), blind
  likewise until it is measured.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

SETS = {"corpus": "corpus.manifest", "holdout": "corpus.holdout.manifest", "holdout2": "corpus.holdout2.manifest",
        "holdout3": "corpus.holdout3.manifest", "holdout4": "corpus.holdout4.manifest",
        "holdout5": "corpus.holdout5.manifest", "holdout6": "corpus.holdout6.manifest",
        "holdout7": "corpus.holdout7.manifest", "holdout8": "corpus.holdout8.manifest",
        "wild": "corpus.wild.manifest"}
TITLES = {"corpus": "The corpus", "holdout": "The held-out set", "holdout2": "The second held-out set",
          "holdout3": "The third held-out set", "holdout4": "The fourth held-out set",
          "holdout5": "The fifth held-out set", "holdout6": "The sixth held-out set",
          "holdout7": "The seventh held-out set", "holdout8": "The eighth held-out set",
          "wild": "The wild set"}
DEFAULT = "corpus"
RESULTS = Path(__file__).resolve().parent / "results"


def load_set(name: str = DEFAULT) -> ModuleType:
    """The manifest module of the set `name`."""
    if name not in SETS:
        raise KeyError(f"no kernel set {name!r}: the sets are {', '.join(SETS)}")
    return importlib.import_module(SETS[name])


def measured_path(name: str = DEFAULT) -> Path:
    """Where `python -m corpus.measure --set NAME` writes by default: results/NAME_h100.json."""
    return RESULTS / f"{name}_h100.json"
