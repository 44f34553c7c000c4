"""rlzoo: algorithms built on rlcore, by family (``rlzoo.tabular``, ...)."""
