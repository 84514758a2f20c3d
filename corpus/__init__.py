import cudasim  # noqa: F401 - first: a Ctrl-C while a `python -m` command loads is one line (cudasim/__init__)
