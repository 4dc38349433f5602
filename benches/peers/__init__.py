"""Benchmark sections for benches/compare.py: one module per hot path.

Each module ``benches/peers/<topic>.py`` defines ``rows(quick: bool) -> list[Row]``, measuring
privlearn and its peers in the same run. compare.py discovers the modules by name; a peer that is
not installed yields a row with ``peer_s=None`` and a note saying what to install.
"""
