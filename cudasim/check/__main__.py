"""`python -m cudasim.check`: see cudasim.check.cli."""
from ..console import run
from .cli import main

run(main)
