"""The eighth held-out set: twelve kernels kept from the model developers (corpus/holdout8/manifest.py)."""
