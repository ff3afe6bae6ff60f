"""Desktop-only tools over the core (not copied to boards): the scenario runner and its output."""
