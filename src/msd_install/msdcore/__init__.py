"""MSD Core runtime side: the standard-library-only code that runs inside a coding runtime.

This package is copied verbatim by the installer into ``<runtime root>/msd-core/lib/msdcore/``
and started from the launchers in ``msd-core/bin/`` (``msd-tools``, ``msd-mcp``). It is also
importable as ``msd_install.msdcore`` when msd-install is pip-installed (console scripts
``msd-tools`` and ``msd-mcp``). Rules for every module in here:

* standard library only (Python >= 3.10), relative imports inside the package;
* nothing written to stdout except protocol/CLI output by the entry points;
* no import-time side effects (hooks and the MCP server start on every call).
"""
