"""The interactive quota and reclaim simulator (guide section 7), driven by simulators.engine."""
