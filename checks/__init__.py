"""benchlint rules, one module per rule."""
