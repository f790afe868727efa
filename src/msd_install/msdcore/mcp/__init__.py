"""The bundled MCP server: newline-delimited JSON-RPC 2.0 on stdio, standard library only.

Entry points: ``python -m msd_install.msdcore.mcp`` / the ``msd-mcp`` console script
(``__main__.main``) and the installed launcher ``<root>/msd-core/bin/msd-mcp``. Both claim the
process's stdio (``guard``) before importing anything else of this package.
"""
