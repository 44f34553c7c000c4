"""Runnable experiments (``python -m rlzoo.experiments.<name>``)."""
