"""`python -m analysis.occupancy`: resident blocks per SM, the limiter, theoretical occupancy, waves.

    python -m analysis.occupancy TARGET [--gpu NAME] [--json] [--regs N] [--smem BYTES] [--no-optin]

The model is analysis.models.occupancy; this module is only its command.
"""
if __name__ == "__main__":
    from cudasim.console import run

    from .cli import main

    run(main, "occupancy")
