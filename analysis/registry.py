"""The registry: every model of analysis/models/ and the ncu metrics it declares.

Reports, the CLI, analysis.compare and analysis.collect_ncu read models and metrics from
here, never by a model's name, so a new model is one new file in analysis/models/.
Models come in their declared `order`; metrics in their model's order, then as declared.
"""
from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import lru_cache

from . import models as _package
from .common import Metric, Model


@lru_cache(maxsize=1)
def models() -> tuple[Model, ...]:
    """Every model, in report order (each module of analysis/models/ defines MODEL)."""
    found = []
    for info in pkgutil.iter_modules(_package.__path__):
        module = importlib.import_module(f"{_package.__name__}.{info.name}")
        model = getattr(module, "MODEL", None)
        if not isinstance(model, Model):
            raise TypeError(f"{module.__name__} defines no MODEL (analysis.common.Model)")
        found.append(model)
    found.sort(key=lambda m: (m.order, m.name))
    names = [m.name for m in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two models share a name: {names}")
    seen: dict[str, str] = {}
    for m in found:
        for metric in m.metrics:
            if metric.name in seen:
                raise ValueError(f"{metric.name} is declared by {seen[metric.name]} and {m.name}")
            seen[metric.name] = m.name
    return tuple(found)


def get(name: str) -> Model:
    """The model called `name`; LookupError naming the close ones."""
    for m in models():
        if m.name == name:
            return m
    close = difflib.get_close_matches(name, [m.name for m in models()], n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise LookupError(f"no model named {name!r}; {hint}(models: {', '.join(m.name for m in models())})")


def trace_models() -> tuple[Model, ...]:
    """The models fed by the one simulation of a launch."""
    return tuple(m for m in models() if m.needs == "trace")


def metrics(predicted_only: bool = False) -> tuple[Metric, ...]:
    """Every declared metric (those measured only for context too, unless `predicted_only`)."""
    return tuple(x for m in models() for x in m.metrics if x.predicted or not predicted_only)


def metric(name: str) -> Metric:
    """The declaration of the ncu metric `name`; KeyError when no model declares it."""
    for x in metrics():
        if x.name == name:
            return x
    raise KeyError(name)
