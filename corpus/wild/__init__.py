"""The wild set: kernels as users keep and write them, kept from the model developers (corpus/wild/manifest.py)."""
