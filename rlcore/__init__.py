"""rlcore (package exports are being assembled)."""
