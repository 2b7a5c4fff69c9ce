"""Shared helpers of the trn-rtl scripts (Python standard library only)."""
