"""The seventh held-out set: sixteen kernels kept from the model developers (corpus/holdout7/manifest.py)."""
