"""Planning operations on a project's ``.planning/`` tree (state, roadmap, phases, config...)."""
