"""Export a finished (or interrupted) run to formats other tools read.

Each format lives in its own module and imports its third-party library only when used, so
the default install runs without them; `endstate[export]` installs them.
"""
