"""`python -m analysis.coalescing`: requests and 32-byte sectors per global access, by source line.

    python -m analysis.coalescing TARGET [--size N] [--gpu NAME] [--json] [--draw text|mermaid|none] [--mermaid] [--svg DIR]
    (TARGET: a catalog name, or path/to/file.cu::kernel --grid X,Y --block X,Y --arg NAME=VALUE ...)

The model is analysis.models.coalescing; this module is only its command.
"""
if __name__ == "__main__":
    from cudasim.console import run

    from .cli import main

    run(main, "coalescing")
