"""permissions/shell."""
