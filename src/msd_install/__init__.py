"""msd-install: installs MSD Core into AI coding runtimes and removes it again without a trace.

Kept import-free on purpose: ``msd-mcp`` and ``msd-tools`` console scripts import this package
before their own entry points, and those must start in a few milliseconds.
"""

__version__ = "0.1.0"
