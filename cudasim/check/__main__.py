"""`python -m cudasim.check`: see cudasim.check.cli."""
from .cli import main

raise SystemExit(main())
