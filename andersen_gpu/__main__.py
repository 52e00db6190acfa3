"""``python3 -m andersen_gpu``: the same as the ``andersen-gpu`` command."""

from .cli import console_main

if __name__ == "__main__":
    console_main()
