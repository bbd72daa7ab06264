"""permissions."""
